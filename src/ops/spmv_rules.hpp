// What SpMV tells the tuning layer (hetbench/op_rules.hpp, docs/tuning-db.md): its
// problem classes (row-length statistics), the kernel order of `--variant auto` and the
// parameter rules of its kernels. The thresholds come from the per-matrix winners measured
// on the H200 (docs/performance-log.md): merge wins on skewed rows, scalar on short even rows,
// vector on long even rows and on rows of scattered columns.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "hetbench/op_rules.hpp"
#include "hetbench/variant.hpp"

namespace hetbench::spmv_detail {

// Coordinates: log2 of rows, mean row length, max/mean row length, 1 + coefficient of
// variation, plus a "scattered" flag 2 apart (beyond reach), each weighted 1 but the
// rows, which count a quarter.
ClassCoords spmv_class(const nlohmann::json& features);
inline constexpr double kSpmvReach = 1;  // row lengths within a factor 2, together

VariantPreference spmv_preference(const nlohmann::json& features);
// has VW: the variant loads VW nonzeros a step (CUDA's vector; NVIDIA's and PoCL's OpenCL
// vector load one), which the TPR rules count in.
std::map<std::string, ParamRule> spmv_param_rules(const Variant& v, const nlohmann::json& features);

// The fraction of the matrix's width its columns reach from the diagonal (bandwidth ÷
// cols; 0 where the features lack them, as in entries written before the flag), and the
// fraction above which the columns count as scattered: rows of random columns make every
// gather of x a miss, so kernels and parameters that win on bands and stencils of the
// same row lengths lose there.
double column_reach(const nlohmann::json& features);
inline constexpr double kScatteredColumns = 0.25;

// Thresholds of the kernel order.
inline constexpr double kSkewedMaxMean = 8;  // max/mean row length above: skewed
inline constexpr double kSkewedCv = 1;       // or coefficient of variation above
inline constexpr double kShortMean = 12;     // mean row length below: short rows
// Thresholds of the parameter rules.
inline constexpr double kLoadsPerLane = 2;    // vector: each lane of a row at least this many VW-wide loads
inline constexpr double kLongMergeRows = 8;   // merge: mean row length from which IPT 5, not 7
inline constexpr double kUnevenCv = 0.3;      // scalar: row length cv above which WG 32

}  // namespace hetbench::spmv_detail
