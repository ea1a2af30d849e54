// Executions (RunSpec::executions, docs/measurement.md "Executions"): a point measured
// in several processes of its own, one after another, pooled into one record. Rounds
// sample what changes between allocations inside one process; executions also sample
// what changes between processes (a new device context, its memory map, the driver's
// state): Kalibera and Jones ("Rigorous benchmarking in reasonable time") repeat at the
// level where the variance lives.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench {

// One record from the records of one point's executions, each `ok` and timed, in order:
// the samples and rounds concatenated (each execution's rounds stay rounds, so
// timing.round_spread spans processes), the statistics and rates recomputed from the
// pooled samples, `timing.executions` and `timing.execution_medians` added, the
// validation the worst of them. Throws Error when a record has no samples.
nlohmann::json merge_executions(const std::vector<nlohmann::json>& records);

}  // namespace hetbench
