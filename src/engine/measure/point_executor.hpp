// The one seam through which `run`, `sweep` and `tune` measure a planned point: in this
// process (as before), or isolated in a worker process per device so that a kernel that
// crashes or hangs costs that point only (docs/isolation.md).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/measure/measure.hpp"
#include "engine/plan/plan.hpp"
#include "engine/plan/spec.hpp"
#include "hetbench/record.hpp"

namespace hetbench {

class PointExecutor {
 public:
  virtual ~PointExecutor() = default;
  // The point `p` of the plan the executor was made for, recorded as number `index`
  // (as measure_planned_point records it). Never throws for what a kernel does.
  virtual PointRecord measure(int index, const PlannedPoint& p) = 0;
};

// Measures in this process, sharing problems and buffers between consecutive points.
class InProcessExecutor : public PointExecutor {
 public:
  InProcessExecutor(const Plan& plan, std::uint64_t seed) : plan_(plan), seed_(seed), inputs_(plan, seed) {}
  PointRecord measure(int index, const PlannedPoint& p) override;

 private:
  const Plan& plan_;
  std::uint64_t seed_;
  PointInputs inputs_;
};

// What a worker needs to plan the experiment as its parent did: the runs, the seed, the
// tuning database the parent read ("" for none) and the kernel folders given.
nlohmann::json worker_setup(const Experiment& e, const std::string& db_path);

// The executor `e` asks for: isolated when e.isolate, else in process. `plan` must be
// plan_experiment(e, the database at db_path) and outlive the executor.
std::unique_ptr<PointExecutor> make_point_executor(const Experiment& e, const Plan& plan, const std::string& db_path);

// A worker process's main (the hidden `hetbench __worker` subcommand): reads requests
// from `fd` until it closes. Returns the exit status.
int run_worker(int fd);

}  // namespace hetbench
