// Points measured in worker processes, one per device (engine/measure/worker_process): the parent
// hands each point to its device's worker and waits, each phase under a time limit. A
// worker that dies costs its point (`crashed`), one over the limit is killed (`timeout`);
// the next worker on that device first passes a known-good kernel, or the device's
// remaining points are errors saying why (docs/isolation.md).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/measure/point_executor.hpp"
#include "engine/measure/worker_process.hpp"

namespace hetbench {

class IsolatedExecutor : public PointExecutor {
 public:
  // `setup`: worker_setup(...); `point_timeout`: the limit on a point's kernel runs,
  // empty to take the one each worker derives from the point's expected time.
  IsolatedExecutor(const Plan& plan, std::uint64_t seed, nlohmann::json setup, std::optional<double> point_timeout);
  ~IsolatedExecutor() override;
  // The point in its device's worker; with RunSpec::executions > 1, in that many workers
  // one after another, pooled by merge_executions.
  PointRecord measure(int index, const PlannedPoint& p) override;

 private:
  struct Slot {
    std::unique_ptr<WorkerProcess> worker;
    bool after_fault = false;
    std::string broken;  // why the device takes no more points
  };
  // A reply, or what went wrong waiting for it.
  struct Reply {
    nlohmann::json msg;
    PointStatus fault = PointStatus::ok;  // crashed or timeout
    std::string why;
  };
  PointRecord measure_once(int index, const PlannedPoint& p);
  Reply await(Slot& s, double limit_s, const std::string& doing);
  std::string start(Slot& s, const std::string& device);  // "" when the worker is ready
  PointRecord planned_record(int index, const PlannedPoint& p, PointStatus status, const std::string& message) const;

  const Plan& plan_;
  std::uint64_t seed_;
  nlohmann::json setup_;
  std::optional<double> point_timeout_;
  PointInputs no_inputs_;  // skipped points touch none
  std::map<std::string, Slot> slots_;  // by device id
};

}  // namespace hetbench
