#include "tuning/auto_rule.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuning/problem_class.hpp"

namespace hetbench::tuning {

namespace {

double get(const nlohmann::json& f, const char* k) { return f.contains(k) && f[k].is_number() ? f[k].get<double>() : 0; }

// SpMV: a preference list from the row-length statistics. After the GPU kernels come the
// host's own ("omp" splits rows and nonzeros evenly, so it is the host's merge).
std::pair<std::vector<std::string>, std::string> spmv_preference(const nlohmann::json& f) {
  const double mean = get(f, "row_mean"), max = get(f, "row_max"), sd = get(f, "row_std");
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

// Vector ops and GEMM: the own variant that measured best with its defaults on the
// H200 and NVIDIA OpenCL, first that exists for the device and precision (dmma is D
// only, the dw kernels DF/DD only, so one list serves every precision).
std::vector<std::string> default_preference(const std::string& op) {
  if (op == "copy") return {"vec16", "simple", "vec", "omp"};
  if (op == "axpy") return {"simple", "vec16", "vec", "dw", "omp", "dw_omp"};
  if (op == "dot") return {"onepass", "vec16", "vec", "local", "dw", "omp", "dw_omp"};
  if (op == "gemm") return {"dmma", "regblock", "dw_tiled", "tiled", "naive", "dw"};
  return {};
}

}  // namespace

std::optional<RuleChoice> rule_choice(const std::string& op, const nlohmann::json& features,
                                      const std::vector<std::string>& available) {
  if (available.empty()) return std::nullopt;
  std::vector<std::string> prefs;
  std::string why;
  if (op == "spmv") {
    std::tie(prefs, why) = spmv_preference(features);
  } else {
    prefs = default_preference(op);
    why = fmt::format("rule: preferred own {} variant", op);
  }
  for (const auto& p : prefs)
    if (std::find(available.begin(), available.end(), p) != available.end()) return RuleChoice{p, why};
  // None of the preferred ones here: the first own variant, by name, so the choice is stable.
  auto first = *std::min_element(available.begin(), available.end());
  return RuleChoice{first, why.empty() ? "rule: the first own variant by name"
                                       : why + fmt::format("; none of its choices here, first own variant by name")};
}

namespace {

// Largest power of two <= x, within [lo, hi].
long long pow2_floor(double x, long long lo, long long hi) {
  long long p = lo;
  while (p * 2 <= hi && static_cast<double>(p * 2) <= x) p *= 2;
  return p;
}
// Smallest power of two >= x, within [lo, hi].
long long pow2_ceil(double x, long long lo, long long hi) {
  long long p = lo;
  while (p < hi && static_cast<double>(p) < x) p *= 2;
  return p;
}

}  // namespace

std::map<std::string, RuleParam> rule_params(const std::string& op, const std::string& variant,
                                             const nlohmann::json& features, bool has_vw) {
  std::map<std::string, RuleParam> out;
  if (op != "spmv") return out;
  const double mean = get(features, "row_mean"), sd = get(features, "row_std");
  const double cv = mean > 0 ? sd / mean : 0;
  if (variant == "vector" && column_reach(features) > kScatteredColumns) {
    // Scattered columns: each step's gathers miss, and a lane waits for them before its
    // next step, so cover the row in one step: TPR·VW >= the mean row length, VW = 2
    // (rows of 20 random columns: TPR 16 reached 1598 GB/s, the 4 of the band rule 1355).
    const double vw = has_vw ? 2 : 1;
    const long long tpr = pow2_ceil(mean / vw, 2, 64);
    const std::string why = fmt::format("rule: scattered columns (bandwidth/cols {:.2g} > {:g}), mean row length {:.3g}",
                                        column_reach(features), kScatteredColumns, mean);
    if (has_vw) out["VW"] = {2, why + " -> VW 2"};
    out["TPR"] = {tpr, why + fmt::format(" -> TPR {} (one step of {} per lane)", tpr, vw)};
  } else if (variant == "vector") {
    // TPR lanes share a row, each loading VW (default 2) nonzeros a step. At least two
    // steps per lane (TPR <= mean / (2 VW)) keeps the lanes idle at a row's end under a
    // third and amortises the log2(TPR) shuffle steps of the row's sum.
    const double vw = has_vw ? 2 : 1;
    const long long tpr = pow2_floor(mean / (kLoadsPerLane * vw), 2, 64);
    out["TPR"] = {tpr, fmt::format("rule: mean row length {:.3g} -> TPR {} (>= {:g} loads of {:g} per lane)", mean, tpr,
                                   kLoadsPerLane, vw)};
  } else if (variant == "merge") {
    // A path item is a nonzero (a gather of x and a multiply-add) or a row end (a store).
    // Long rows make nearly every item a gather: fewer per thread keep a tile's staging
    // smaller and more tiles in flight; short rows make half the items cheap.
    const long long ipt = mean >= kLongMergeRows ? 5 : 7;
    out["IPT"] = {ipt, fmt::format("rule: mean row length {:.3g} {} {:g} -> IPT {}", mean,
                                   mean >= kLongMergeRows ? ">=" : "<", kLongMergeRows, ipt)};
  } else if (variant == "scalar") {
    // One thread a row: a block holds its slot until its longest row ends, so uneven
    // rows waste less in blocks of one warp.
    if (cv > kUnevenCv)
      out["WG"] = {32, fmt::format("rule: row length cv {:.3g} > {:g} -> WG 32", cv, kUnevenCv)};
  }
  return out;
}

}  // namespace hetbench::tuning
