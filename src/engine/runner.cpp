// plan -> for each point: measure -> record -> write -> report.
#include "engine/runner.hpp"

#include <fmt/format.h>

#include "engine/interrupt.hpp"
#include "engine/measure.hpp"
#include "engine/plan.hpp"
#include "engine/provenance.hpp"
#include "engine/report.hpp"
#include "engine/results.hpp"
#include "hetbench/error.hpp"
#include "hetbench/record.hpp"
#include "tuning/db.hpp"

namespace hetbench {

namespace {

PointRecord start_record(int index, const RunPlan& run, const PlannedPoint& p, std::uint64_t seed) {
  const Variant& v = *p.variant;
  const Device& dev = *run.devices[p.device];
  PointRecord rec;
  rec.point = index;
  rec.op = run.op->name();
  rec.variant = v.name;
  rec.variant_id = v.id();
  rec.kind = v.kind;
  rec.backend = v.backend;
  rec.device = dev.id();
  rec.device_name = dev.info().name;
  rec.precision = p.prec;
  rec.sizes = run.sizes[p.size];
  rec.params = p.params;
  if (!p.param_source.empty()) rec.param_source = p.param_source;
  rec.auto_choice = p.auto_choice;
  rec.seed = seed;
  rec.time = now_iso8601();
  return rec;
}

void measure(const PlannedPoint& p, const RunPlan& run, PointInputs& inputs, PointRecord& rec) {
  try {
    const Problem& prob = inputs.problem(p);
    DeviceBuffers& bufs = inputs.buffers(p);
    rec.flops = prob.flops;
    rec.min_bytes = prob.min_bytes;
    rec.features = prob.features;
    measure_point(*run.devices[p.device], prob, bufs, *p.variant, p.params, *run.op, measure_policy(*run.spec), rec);
  } catch (const BuildError& e) {
    rec.status = PointStatus::error;
    rec.error_stage = ErrorStage::build;
    rec.message = e.what();
  } catch (const PointError& e) {
    rec.status = PointStatus::error;
    rec.error_stage = ErrorStage::run;
    rec.message = e.what();
  }
}

}  // namespace

PointRecord measure_planned_point(int index, const Plan& plan, const PlannedPoint& p, PointInputs& inputs,
                                  std::uint64_t seed) {
  const RunPlan& run = plan.runs[p.run];
  PointRecord rec = start_record(index, run, p, seed);
  if (!p.input_error.empty()) {
    rec.status = PointStatus::error;
    rec.error_stage = ErrorStage::input;
    rec.message = p.input_error;
  } else if (!p.skip.empty()) {
    rec.status = PointStatus::skipped;
    rec.message = p.skip;
  } else {
    measure(p, run, inputs, rec);
  }
  return rec;
}

int run_experiment(const Experiment& e, std::filesystem::path* dir) {
  // The tuning database, read only: a missing file means nothing is tuned yet.
  const auto db_path = tuning::resolve_db_path(e.db);
  const auto db = db_path.empty() ? nullptr : tuning::TuningDb::open_if_exists(db_path);
  const Plan plan = plan_experiment(e, db.get());
  auto ej = experiment_json(e, plan);
  ej["tuning_db"] = db ? nlohmann::json(db_path) : nlohmann::json(nullptr);
  ExperimentWriter writer(e.out_root, e.name, ej);
  if (dir) *dir = writer.dir();
  fmt::print(stderr, "hetbench: recording in {}\n", writer.dir().string());
  for (const auto& why : plan.left_out) fmt::print(stderr, "hetbench: {}\n", why);

  std::vector<nlohmann::json> records;
  int failed = 0, errors = 0;
  {
    InterruptGuard guard;
    PointInputs inputs(plan, e.seed);
    for (const auto& p : plan.points) {
      if (interrupted()) break;
      PointRecord rec = measure_planned_point(static_cast<int>(records.size()), plan, p, inputs, e.seed);
      failed += rec.status == PointStatus::failed;
      errors += rec.status == PointStatus::error;
      auto j = to_json(rec);
      writer.append(j);
      print_progress(j);
      records.push_back(std::move(j));
    }
  }
  const bool stopped = interrupted();
  writer.finish({{"status", stopped ? "interrupted" : "complete"},
                 {"points", records.size()},
                 {"failed", failed},
                 {"errors", errors}});
  print_report(records, e.format, e.best_only);
  fmt::print(stderr, "hetbench: {} points, {} failed validation, {} errors{}; results in {}\n", records.size(), failed,
             errors, stopped ? ", interrupted" : "", writer.dir().string());
  if (stopped) return 130;
  return failed || errors ? 1 : 0;
}

}  // namespace hetbench
