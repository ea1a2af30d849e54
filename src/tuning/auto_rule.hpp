// The built-in rule of `--variant auto` for problems the tuning database knows nothing
// near: which own variant to take from the problem's features (docs/tuning-db.md).
#pragma once

#include <map>
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
// (Rows of scattered columns, problem_class.hpp's kScatteredColumns, go to vector.)

// The variant the rule picks among `available` (names of the op's own variants that run
// on the device in the precision), or nullopt when `available` is empty.
std::optional<RuleChoice> rule_choice(const std::string& op, const nlohmann::json& features,
                                      const std::vector<std::string>& available);

// The parameter rule of `--variant auto`, for a point the database knows nothing near:
// values from the problem's features for the parameters the rule has an opinion on
// (SpMV: vector's TPR from the mean row length, and with VW from it where the columns
// are scattered, merge's IPT from nnz/rows, scalar's WG from the spread of row lengths;
// docs/tuning-db.md gives the reasoning and the H200 figures). Each value comes with its reason, recorded as the parameter's source; the
// caller keeps only values in the variant's domain. Empty for ops without such a rule.
struct RuleParam {
  long long value = 0;
  std::string why;  // "rule: mean row length 27 -> TPR 4 (>= 2 loads of VW 2 per lane)"
};
// has_vw: the variant loads VW nonzeros a step (CUDA's vector; NVIDIA's and PoCL's
// OpenCL vector load one), which the TPR rules count in.
std::map<std::string, RuleParam> rule_params(const std::string& op, const std::string& variant,
                                             const nlohmann::json& features, bool has_vw = true);

// Thresholds of the parameter rule.
inline constexpr double kLoadsPerLane = 2;  // vector: each lane of a row at least this many VW-wide loads
inline constexpr double kLongMergeRows = 8;   // merge: mean row length from which IPT 5, not 7
inline constexpr double kUnevenCv = 0.3;      // scalar: row length cv above which WG 32

}  // namespace hetbench::tuning
