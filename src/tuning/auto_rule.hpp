// The built-in rule of `--variant auto` for problems the tuning database knows nothing
// near: which own variant to take from the problem's features (docs/tuning-db.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench::tuning {

struct RuleChoice {
  std::string name;    // a variant name among `available`
  std::string reason;  // "rule: max/mean row length 53 > 8"
};

// Thresholds of the SpMV rule, from the per-matrix winners measured on the H200
// (docs/performance.md): merge wins on skewed rows, scalar on short even rows, vector on
// long even rows.
inline constexpr double kSkewedMaxMean = 8;  // max/mean row length above: skewed
inline constexpr double kSkewedCv = 1;       // or coefficient of variation above
inline constexpr double kShortMean = 12;     // mean row length below: short rows

// The variant the rule picks among `available` (names of the op's own variants that run
// on the device in the precision), or nullopt when `available` is empty.
std::optional<RuleChoice> rule_choice(const std::string& op, const nlohmann::json& features,
                                      const std::vector<std::string>& available);

}  // namespace hetbench::tuning
