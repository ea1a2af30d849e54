// The sweep runner: plans an experiment's points (engine/plan), then measures
// (engine/measure), records (hetbench/record.hpp), writes (engine/results) and reports
// (engine/report) each one.
#pragma once

#include <filesystem>

#include "engine/spec.hpp"

namespace hetbench {

// Runs the experiment. Returns the process exit status: 0 when every point passed,
// 1 when a point failed validation or hit an error, 130 when interrupted.
// Bad input throws Error before anything is measured. `dir`, when given, receives the
// experiment folder.
int run_experiment(const Experiment& e, std::filesystem::path* dir = nullptr);

}  // namespace hetbench
