// One experiment folder in use by a command that records points (run, sweep, the default
// suite, replay, tune, the sharded sweep's rank 0, solve, dist's rank 0): a new folder (created, experiment.json
// written, locked, the --kernel files copied in), or a recorded one resumed (locked first,
// so that the records read before it is reopened are the folder's, then reopened for
// appending). Held for the command's life; the lock goes with it.
#pragma once

#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "engine/record/resume.hpp"
#include "engine/record/results.hpp"
#include "engine/plan/spec.hpp"

namespace hetbench {

class ExperimentSession {
 public:
  // A new folder <e.out_root>/<timestamp>-<e.name> whose experiment.json is `experiment`
  // with the kernel files of e's --kernel entries ("kernels", engine/record/kernel_files.hpp),
  // which are copied into it. Throws Error when the folder cannot be made or a file read.
  static std::unique_ptr<ExperimentSession> create(const Experiment& e, nlohmann::json experiment);
  // A new folder <out_root>/<timestamp>-<name> for a command that records no runs of a
  // spec (solve, dist): experiment.json written, locked.
  static std::unique_ptr<ExperimentSession> create(const std::string& out_root, const std::string& name,
                                                   nlohmann::json experiment);
  // A recorded folder, locked (Error when another process holds it); reopen() before
  // writing.
  static std::unique_ptr<ExperimentSession> lock(const std::filesystem::path& dir);
  // The locked folder reopened for appending (ExperimentWriter::Reopen).
  void reopen();

  ExperimentWriter& writer() { return *writer_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  ExperimentSession() = default;
  std::filesystem::path dir_;
  std::unique_ptr<ExperimentWriter> writer_;
  std::unique_ptr<ExperimentLock> lock_;
};

}  // namespace hetbench
