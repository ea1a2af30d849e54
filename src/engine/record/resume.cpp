#include "engine/record/resume.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "util/json_file.hpp"

namespace hetbench {

namespace fs = std::filesystem;

Experiment recorded_experiment(const fs::path& dir) {
  const auto path = dir / "experiment.json";
  if (!fs::exists(path))
    throw Error(fmt::format("--resume '{}': it has no experiment.json (no experiment folder, or killed before "
                            "its first write: start it again)",
                            dir.string()));
  const nlohmann::json j = read_json_file(path.string());
  if (!j.is_object() || !j.contains("runs") || !j["runs"].is_array())
    throw Error(fmt::format("--resume '{}': '{}' records no runs (key 'runs')", dir.string(), path.string()));
  if (j.contains("tune"))
    throw Error(fmt::format("--resume '{}': this is a tuning; resume it with `hetbench tune --resume`", dir.string()));
  if (!j.contains("seed") || !j["seed"].is_number_unsigned())
    throw Error(fmt::format("--resume '{}': '{}' records no seed (key 'seed')", dir.string(), path.string()));
  // Its points alone would not write the ceilings file, which is what it is for.
  if (j.contains("spec") && j["spec"].is_object() && j["spec"].contains("purpose"))
    throw Error(fmt::format("--resume '{}': it was made by `{}`: run that again", dir.string(),
                            j["spec"]["purpose"].is_string() ? j["spec"]["purpose"].get<std::string>() : "?"));
  Experiment e;
  e.name = j.value("name", "sweep");
  e.seed = j["seed"].get<std::uint64_t>();
  e.command_line = j.value("command_line", "");
  e.spec = j.value("spec", nlohmann::json::object());
  for (std::size_t i = 0; i < j["runs"].size(); ++i)
    e.runs.push_back(run_spec_from_json(j["runs"][i], fmt::format("{} runs[{}]", path.string(), i)));
  // The database the plan read then, or none: a default that has appeared since must not
  // change the parameters of the points still to measure.
  const auto db = j.value("tuning_db", nlohmann::json());
  e.db = db.is_string() ? db.get<std::string>() : "none";
  e.out_root = fs::absolute(dir).parent_path().string();
  return e;
}

bool retried(const std::string& status, bool retry_errors) {
  return retry_errors && (status == "error" || status == "crashed" || status == "timeout");
}

namespace {

// What identifies a planned point in its record; the keys are those of results.jsonl.
nlohmann::json identity(const Plan& plan, const PlannedPoint& p, std::uint64_t seed) {
  const RunPlan& run = plan.runs[p.run];
  return {{"op", run.op->name()},
          {"variant_id", p.variant->id()},
          {"device", run.devices[p.device]->id()},
          {"precision", std::string(name(p.prec))},
          {"sizes", nlohmann::json(run.sizes[p.size])},
          {"params", nlohmann::json(p.params)},
          {"seed", seed},
          {"skipped", !p.skip.empty()}};
}

std::string difference(const nlohmann::json& planned, const nlohmann::json& rec) {
  std::string out;
  for (const auto& [k, v] : planned.items()) {
    const auto r = k == "skipped" ? nlohmann::json(rec.value("status", "") == "skipped") : rec.value(k, nlohmann::json());
    if (r != v) out += fmt::format("{}{} was {} and is now {}", out.empty() ? "" : "; ", k, r.dump(), v.dump());
  }
  return out;
}

}  // namespace

ResumeState match_records(const Plan& plan, std::uint64_t seed, const std::vector<nlohmann::json>& records,
                          const ResumeOptions& o) {
  ResumeState s;
  s.finished.resize(plan.points.size());
  std::vector<bool> seen(plan.points.size());
  const auto where = (o.dir / "results.jsonl").string();
  for (std::size_t line = 0; line < records.size(); ++line) {
    const auto& rec = records[line];
    const auto pt = rec.value("point", nlohmann::json());
    if (!pt.is_number_integer() || pt.get<long long>() < 0 ||
        pt.get<long long>() >= static_cast<long long>(plan.points.size()))
      throw Error(fmt::format("--resume: '{}' line {}: point {} is not in the plan of {} points", where, line + 1,
                              pt.dump(), plan.points.size()));
    const auto i = pt.get<std::size_t>();
    const auto diff = difference(identity(plan, plan.points[i], seed), rec);
    if (!diff.empty())
      throw Error(fmt::format("--resume: point {} ('{}' line {}) differs from the plan: {} (the tuning database, "
                              "the kernels or the devices changed since it was recorded)",
                              i, where, line + 1, diff));
    if (seen[i]) throw Error(fmt::format("--resume: point {} is recorded twice in '{}' (line {})", i, where, line + 1));
    seen[i] = true;
    // A point cut short by a signal is recorded as far as it got (or as interrupted, when it
    // did not stop within the grace period); a resume measures it in full.
    const bool cut_short = rec.value("status", "") == "interrupted" ||
                           (rec.contains("timing") && rec["timing"].value("stop", "") == "interrupted");
    if (cut_short || retried(rec.value("status", ""), o.retry_errors)) {
      ++s.retried;
      continue;
    }
    s.finished[i] = rec;
    s.kept.push_back(rec);
  }
  return s;
}

ExperimentLock::ExperimentLock(const fs::path& dir) {
  const auto path = dir / ".lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw Error(fmt::format("'{}' is being written by another hetbench (it holds '{}')", dir.string(), path.string()));
  }
}

ExperimentLock::~ExperimentLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace hetbench
