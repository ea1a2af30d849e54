// The end of a tuning: the best configuration of each problem and variant, for
// experiment.json, the database hook and a table on stdout.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tune/space.hpp"
#include "tune/ties.hpp"
#include "tune/tuner.hpp"

namespace hetbench::tune {

// `measured` and `recs` are parallel: the evaluations in order and their records.
TuningResult summarize(const Space& space, const std::vector<Measured>& measured,
                       const std::vector<nlohmann::json>& recs, std::size_t pruned, const TuneSettings& s,
                       double wall_s, const std::string& experiment);
void print_summary(const std::vector<TuningResult>& results);

}  // namespace hetbench::tune
