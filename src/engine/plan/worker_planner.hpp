// How a worker process plans its points as its parent did. Most parents plan from the
// runs (sweep, run, tune), and so does the worker; a parent that built its plan another
// way (replay: from the records of an experiment) names a planner registered here and
// its arguments (Experiment::worker_plan), and the worker calls that planner.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/plan/plan.hpp"

namespace hetbench {

struct WorkerPlan {
  const Plan* plan = nullptr;  // owned by `owner`, as are the runs it points to
  std::uint64_t seed = 0;
  std::shared_ptr<void> owner;
};
// `args`: the parent's Experiment::worker_plan (with "planner": NAME). Throws Error.
using WorkerPlanner = std::function<WorkerPlan(const nlohmann::json& args)>;

// Registered at static initialisation by the library that owns the planner.
bool register_worker_planner(const std::string& name, WorkerPlanner planner);
// The planner named by args["planner"], applied; throws Error naming an unknown one.
WorkerPlan plan_in_worker(const nlohmann::json& args);

}  // namespace hetbench
