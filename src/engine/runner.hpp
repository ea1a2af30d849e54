// The sweep runner: plans an experiment's points (engine/plan/plan), then measures
// (engine/measure/measure), records (hetbench/record.hpp), writes (engine/record/results) and reports
// (engine/record/report) each one.
#pragma once

#include <filesystem>

#include "engine/measure/measure.hpp"
#include "engine/plan/plan.hpp"
#include "engine/record/resume.hpp"
#include "engine/plan/spec.hpp"
#include "hetbench/record.hpp"

namespace hetbench {

// Runs the experiment. Returns the process exit status: 0 when every point passed,
// 1 when a point failed validation or hit an error, 130 when interrupted.
// Bad input throws Error before anything is measured (an unreadable file among several
// inputs is recorded instead: see plan_run). `dir`, when given, receives the
// experiment folder. With `resume`, the experiment (recorded_experiment of resume->dir)
// goes on in its folder: the points its records hold are not measured again
// (engine/record/resume.hpp, docs/resume.md).
int run_experiment(const Experiment& e, std::filesystem::path* dir = nullptr, const ResumeOptions* resume = nullptr);
// `--dry-run`: the experiment planned as run_experiment plans it (tuning database, rules,
// constraints) and its points printed on stdout, each with its parameters, where they came
// from and why it would be skipped; the count on stderr. Nothing is measured or written.
int print_planned(const Experiment& e);

// A planned point's record before it is measured: what, where, the seed and the time.
PointRecord start_record(int index, const RunPlan& run, const PlannedPoint& p, std::uint64_t seed);
// The record of a point still running when the process ends after a signal's grace period
// (engine/measure/interrupt.hpp): status interrupted, nothing measured; a resume measures it again.
PointRecord interrupted_record(int index, const RunPlan& run, const PlannedPoint& p, std::uint64_t seed);

// One planned point measured as `run` measures it, numbered `index`: a point with a
// violated constraint is recorded as skipped, an unreadable input (stage input), a build,
// launch or memory failure as an error. `tune` measures its evaluations through this too, so both record alike.
PointRecord measure_planned_point(int index, const Plan& plan, const PlannedPoint& p, PointInputs& inputs,
                                  std::uint64_t seed);

}  // namespace hetbench
