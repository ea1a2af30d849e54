#include "engine/measure/point_executor.hpp"

#include <algorithm>

#include "engine/measure/isolated_executor.hpp"
#include "engine/runner.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

PointRecord InProcessExecutor::measure(int index, const PlannedPoint& p) {
  return measure_planned_point(index, plan_, p, inputs_, seed_);
}

nlohmann::json worker_setup(const Experiment& e, const std::string& db_path) {
  nlohmann::json runs = nlohmann::json::array(), whole = nlohmann::json::array();
  for (const auto& r : e.runs) {
    runs.push_back(to_json(r));
    whole.push_back(r.whole_domains);
  }
  nlohmann::json j = {{"type", "setup"},   {"runs", runs}, {"whole_domains", whole},
                      {"seed", e.seed},    {"db", db_path}, {"kernel_paths", kernel_paths()}};
  // `run --kernel`: the GEMMbench entries register variants of their own.
  if (!e.worker_plan.is_null()) j["plan"] = e.worker_plan;
  // The worker plans the same points: the filter narrows them alike.
  if (e.spec.is_object() && e.spec.contains("filter")) j["filter"] = e.spec["filter"];
  if (e.spec.contains("gemmbench") && !e.runs.empty())
    j["gemmbench"] = {{"op", e.runs[0].op}, {"path", e.spec["gemmbench"]}};
  return j;
}

std::unique_ptr<PointExecutor> make_point_executor(const Experiment& e, const Plan& plan, const std::string& db_path) {
  // Executions are processes of their own: only workers give them.
  const bool executions = std::any_of(e.runs.begin(), e.runs.end(), [](const RunSpec& r) { return r.executions > 1; });
  if (!e.isolate && !executions) return std::make_unique<InProcessExecutor>(plan, e.seed);
  return std::make_unique<IsolatedExecutor>(plan, e.seed, worker_setup(e, db_path), e.point_timeout);
}

}  // namespace hetbench
