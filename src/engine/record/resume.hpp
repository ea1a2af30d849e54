// Resuming an experiment (`sweep --resume`, docs/resume.md): the experiment as
// experiment.json recorded it, and which planned points its results.jsonl already holds.
// A point is matched by its index and its identity (variant, device, precision, sizes or
// matrix, parameters, seed): a re-plan that differs is another experiment, and resuming
// it would mix two in one folder, so it is refused naming the point and the difference.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/plan/plan.hpp"
#include "engine/plan/spec.hpp"

namespace hetbench {

struct ResumeOptions {
  std::filesystem::path dir;
  // Measure again the points that ended in error, crashed or timeout (not failed
  // validation, nor skipped: those are results).
  bool retry_errors = false;
};

// The experiment recorded in dir/experiment.json: name, runs, seed, spec and the tuning
// database choice ("none" when it read none), with out_root the folder's parent. Throws
// Error naming the file when it is missing, a tuning, or made by `hetbench ceilings`.
Experiment recorded_experiment(const std::filesystem::path& dir);

// Whether a record with this status is to be measured again under `retry_errors`. Every
// status is finished otherwise, unknown ones included (a newer hetbench's).
bool retried(const std::string& status, bool retry_errors);

// What the plan and the records say together: per planned point, its record when it is
// finished; and the records kept (those to measure again left out: retried ones, and a
// point cut short by Ctrl-C, whose timing.stop is "interrupted"). Throws Error naming
// the point and the difference when a record does not match the plan.
struct ResumeState {
  std::vector<std::optional<nlohmann::json>> finished;
  std::vector<nlohmann::json> kept;
  std::size_t retried = 0;
};
ResumeState match_records(const Plan& plan, std::uint64_t seed, const std::vector<nlohmann::json>& records,
                          const ResumeOptions& o);

// An exclusive lock on an experiment folder while a process writes it (released by the
// kernel when the process dies, SIGKILL included): two resumes of one folder would
// measure the same points twice. Throws Error when another process holds it.
class ExperimentLock {
 public:
  explicit ExperimentLock(const std::filesystem::path& dir);
  ~ExperimentLock();
  ExperimentLock(const ExperimentLock&) = delete;
  ExperimentLock& operator=(const ExperimentLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace hetbench
