// How fast, against what: per machine, device, op and precision, the fastest own variant
// (any kind but "library") over the fastest vendor library at each problem both ran,
// summarised over those problems; where no library ran, the own best rate alone. The first
// table of `hetbench report` (docs/report.md), computed by the one results query
// (query::best_per_group, query::summarize) and handed to the report script as JSON.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench {

// One object a (host, device, op, precision) with an own ok record, those with a vendor
// beside first, then by device, op and precision:
//   host, device, device_name, op, precision, unit,
//   best_own {rate, variant_id, params, problem}   the fastest own point of the op there,
//   problems, geomean, min, max, min_at, vendor    own best ÷ vendor best per problem
//                                                   (absent where no vendor ran).
// Rates are query::headline_rate's; a problem is query::sizes_text's label.
nlohmann::json own_vs_vendor(const std::vector<nlohmann::json>& records);

}  // namespace hetbench
