// The sweep runner: plans an experiment's points (engine/plan), then measures
// (engine/measure), records (hetbench/record.hpp), writes (engine/results) and reports
// (engine/report) each one.
#pragma once

#include <filesystem>

#include "engine/measure.hpp"
#include "engine/plan.hpp"
#include "engine/spec.hpp"
#include "hetbench/record.hpp"

namespace hetbench {

// Runs the experiment. Returns the process exit status: 0 when every point passed,
// 1 when a point failed validation or hit an error, 130 when interrupted.
// Bad input throws Error before anything is measured (an unreadable file among several
// inputs is recorded instead: see plan_run). `dir`, when given, receives the
// experiment folder.
int run_experiment(const Experiment& e, std::filesystem::path* dir = nullptr);

// One planned point measured as `run` measures it, numbered `index`: a point with a
// violated constraint is recorded as skipped, an unreadable input (stage input), a build,
// launch or memory failure as an error. `tune` measures its evaluations through this too, so both record alike.
PointRecord measure_planned_point(int index, const Plan& plan, const PlannedPoint& p, PointInputs& inputs,
                                  std::uint64_t seed);

}  // namespace hetbench
