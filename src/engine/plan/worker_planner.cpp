#include "engine/plan/worker_planner.hpp"

#include <fmt/format.h>

#include <map>

#include "hetbench/error.hpp"

namespace hetbench {

namespace {
std::map<std::string, WorkerPlanner>& planners() {
  static std::map<std::string, WorkerPlanner> m;
  return m;
}
}  // namespace

bool register_worker_planner(const std::string& name, WorkerPlanner planner) {
  planners()[name] = std::move(planner);
  return true;
}

WorkerPlan plan_in_worker(const nlohmann::json& args) {
  const std::string name = args.value("planner", "");
  const auto it = planners().find(name);
  if (it == planners().end()) throw Error(fmt::format("a worker has no planner '{}'", name));
  return it->second(args);
}

}  // namespace hetbench
