#include "ops/spmv_rules.hpp"

#include <cmath>

#include <fmt/format.h>

namespace hetbench::spmv_detail {

namespace {

double feature_or_zero(const nlohmann::json& f, const char* k) { return f.contains(k) && f[k].is_number() ? f[k].get<double>() : 0; }
double log2_from_1(double x) { return std::log2(std::max(x, 1.0)); }

// Largest power of two <= x, within [lo, hi].
long long pow2_at_most(double x, long long lo, long long hi) {
  long long p = lo;
  while (p * 2 <= hi && static_cast<double>(p * 2) <= x) p *= 2;
  return p;
}
// Smallest power of two >= x, within [lo, hi].
long long pow2_at_least(double x, long long lo, long long hi) {
  long long p = lo;
  while (p < hi && static_cast<double>(p) < x) p *= 2;
  return p;
}

}  // namespace

double column_reach(const nlohmann::json& f) {
  const double cols = feature_or_zero(f, "cols");
  return cols > 0 ? feature_or_zero(f, "bandwidth") / cols : 0;
}

// The row-length statistics decide which kernel wins (docs/performance-log.md), so they are
// the coordinates, next to the number of rows. Which kernel wins follows the row lengths
// far more than the number of rows, which counts a quarter (measured on the H200: a
// matrix of 2M rows of 20 random columns is nearer 1M rows of 8 than 2M rows of a 9-wide
// band).
ClassCoords spmv_class(const nlohmann::json& f) {
  ClassCoords c;
  const double rows = class_feature(f, "rows", "spmv"), mean = class_feature(f, "row_mean", "spmv");
  const double max = class_feature(f, "row_max", "spmv"), sd = class_feature(f, "row_std", "spmv");
  const double skew = mean > 0 ? max / mean : 1, cv = mean > 0 ? sd / mean : 0;
  // The flag is 2 apart, beyond reach: random rows never borrow a band's entry.
  const bool scattered = column_reach(f) > kScatteredColumns;
  c.coords = {log2_from_1(rows), log2_from_1(mean), log2_from_1(skew), std::log2(1 + cv), scattered ? 2.0 : 0.0};
  c.weights = {0.25, 1, 1, 1, 1};
  c.label = fmt::format("rows 2^{} mean 2^{} max/mean 2^{} cv {:.1f}{}", std::lround(c.coords[0]),
                        std::lround(c.coords[1]), std::lround(c.coords[2]), cv, scattered ? " scattered" : "");
  c.features = {{"rows", rows}, {"row_mean", mean}, {"row_max", max}, {"row_std", sd}};
  if (f.contains("cols") && f.contains("bandwidth")) {
    c.features["cols"] = f["cols"];
    c.features["bandwidth"] = f["bandwidth"];
  }
  return c;
}

// After the GPU kernels come the host's own ("omp" splits rows and nonzeros evenly, so it
// is the host's merge).
VariantPreference spmv_preference(const nlohmann::json& f) {
  const double mean = feature_or_zero(f, "row_mean"), max = feature_or_zero(f, "row_max"), sd = feature_or_zero(f, "row_std");
  const double skew = mean > 0 ? max / mean : 0, cv = mean > 0 ? sd / mean : 0;
  if (skew > kSkewedMaxMean)
    return {{"merge", "omp", "vector", "scalar"}, fmt::format("rule: max/mean row length {:.3g} > {:g}", skew, kSkewedMaxMean)};
  if (cv > kSkewedCv)
    return {{"merge", "omp", "vector", "scalar"}, fmt::format("rule: row length cv {:.3g} > {:g}", cv, kSkewedCv)};
  // Rows of columns from anywhere: every gather of x is a miss, and vector with one load
  // step per lane has a row's misses in flight at once, where scalar's thread takes them
  // one after another (H200, D: random rows of 2.4 and 20 nonzeros, vector 0.985 and 1.0
  // of the best own kernel, scalar 0.89 and 0.67).
  if (const double r = column_reach(f); r > kScatteredColumns)
    return {{"vector", "omp", "scalar", "merge"},
            fmt::format("rule: even rows (max/mean {:.3g} <= {:g}) of scattered columns (bandwidth/cols {:.2g} > {:g})",
                        skew, kSkewedMaxMean, r, kScatteredColumns)};
  if (mean < kShortMean)
    return {{"scalar", "omp", "vector", "merge"},
            fmt::format("rule: even rows (max/mean {:.3g} <= {:g}) and short (mean {:.3g} < {:g})", skew, kSkewedMaxMean,
                        mean, kShortMean)};
  return {{"vector", "omp", "merge", "scalar"},
          fmt::format("rule: even rows (max/mean {:.3g} <= {:g}) and long (mean {:.3g} >= {:g})", skew, kSkewedMaxMean,
                      mean, kShortMean)};
}

std::map<std::string, ParamRule> spmv_param_rules(const Variant& v, const nlohmann::json& features) {
  std::map<std::string, ParamRule> out;
  const bool has_vw = v.param("VW") != nullptr;
  const double mean = feature_or_zero(features, "row_mean"), sd = feature_or_zero(features, "row_std");
  const double cv = mean > 0 ? sd / mean : 0;
  if (v.name == "vector" && column_reach(features) > kScatteredColumns) {
    // Scattered columns: each step's gathers miss, and a lane waits for them before its
    // next step, so cover the row in one step: TPR·VW >= the mean row length, VW = 2
    // (rows of 20 random columns: TPR 16 reached 1598 GB/s, the 4 of the band rule 1355).
    const double vw = has_vw ? 2 : 1;
    const long long tpr = pow2_at_least(mean / vw, 2, 64);
    const std::string why = fmt::format("rule: scattered columns (bandwidth/cols {:.2g} > {:g}), mean row length {:.3g}",
                                        column_reach(features), kScatteredColumns, mean);
    if (has_vw) out["VW"] = {2, why + " -> VW 2"};
    out["TPR"] = {tpr, why + fmt::format(" -> TPR {} (one step of {} per lane)", tpr, vw)};
  } else if (v.name == "vector") {
    // TPR lanes share a row, each loading VW (default 2) nonzeros a step. At least two
    // steps per lane (TPR <= mean / (2 VW)) keeps the lanes idle at a row's end under a
    // third and amortises the log2(TPR) shuffle steps of the row's sum.
    const double vw = has_vw ? 2 : 1;
    const long long tpr = pow2_at_most(mean / (kLoadsPerLane * vw), 2, 64);
    out["TPR"] = {tpr, fmt::format("rule: mean row length {:.3g} -> TPR {} (>= {:g} loads of {:g} per lane)", mean, tpr,
                                   kLoadsPerLane, vw)};
  } else if (v.name == "merge") {
    // A path item is a nonzero (a gather of x and a multiply-add) or a row end (a store).
    // Long rows make nearly every item a gather: fewer per thread keep a tile's staging
    // smaller and more tiles in flight; short rows make half the items cheap.
    const long long ipt = mean >= kLongMergeRows ? 5 : 7;
    out["IPT"] = {ipt, fmt::format("rule: mean row length {:.3g} {} {:g} -> IPT {}", mean,
                                   mean >= kLongMergeRows ? ">=" : "<", kLongMergeRows, ipt)};
  } else if (v.name == "scalar") {
    // One thread a row: a block holds its slot until its longest row ends, so uneven
    // rows waste less in blocks of one warp.
    if (cv > kUnevenCv) out["WG"] = {32, fmt::format("rule: row length cv {:.3g} > {:g} -> WG 32", cv, kUnevenCv)};
  }
  return out;
}

}  // namespace hetbench::spmv_detail
