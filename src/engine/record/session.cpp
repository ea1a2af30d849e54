#include "engine/record/session.hpp"

#include "engine/record/kernel_files.hpp"

namespace hetbench {

std::unique_ptr<ExperimentSession> ExperimentSession::create(const Experiment& e, nlohmann::json experiment) {
  const auto kernels = kernel_files_of(e);
  if (!kernels.is_null()) experiment["kernels"] = kernels;
  auto s = create(e.out_root, e.name, std::move(experiment));
  copy_kernel_files(kernels, s->dir_);
  return s;
}

std::unique_ptr<ExperimentSession> ExperimentSession::create(const std::string& out_root, const std::string& name,
                                                             nlohmann::json experiment) {
  std::unique_ptr<ExperimentSession> s(new ExperimentSession);
  s->writer_ = std::make_unique<ExperimentWriter>(out_root, name, std::move(experiment));
  s->dir_ = s->writer_->dir();
  s->lock_ = std::make_unique<ExperimentLock>(s->dir_);
  return s;
}

std::unique_ptr<ExperimentSession> ExperimentSession::lock(const std::filesystem::path& dir) {
  std::unique_ptr<ExperimentSession> s(new ExperimentSession);
  s->dir_ = dir;
  s->lock_ = std::make_unique<ExperimentLock>(dir);
  return s;
}

void ExperimentSession::reopen() { writer_ = std::make_unique<ExperimentWriter>(ExperimentWriter::Reopen{}, dir_); }

}  // namespace hetbench
