#include "tuning/problem_class.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench::tuning {

namespace {

double lg(double x) { return std::log2(std::max(x, 1.0)); }
long bucket(double log2x) { return std::lround(log2x); }

double number(const nlohmann::json& f, const char* key, const std::string& op) {
  if (!f.contains(key) || !f[key].is_number())
    throw Error(fmt::format("problem class of {}: feature '{}' is missing", op, key));
  return f[key].get<double>();
}

// SpMV: the row-length statistics decide which kernel wins (docs/performance.md), so
// they are the coordinates, next to the number of rows.
ProblemClass spmv_class(const nlohmann::json& f) {
  ProblemClass c;
  c.op = "spmv";
  const double rows = number(f, "rows", "spmv"), mean = number(f, "row_mean", "spmv");
  const double max = number(f, "row_max", "spmv"), sd = number(f, "row_std", "spmv");
  const double skew = mean > 0 ? max / mean : 1, cv = mean > 0 ? sd / mean : 0;
  // The flag is 2 apart, beyond reach: random rows never borrow a band's entry.
  const bool scattered = column_reach(f) > kScatteredColumns;
  c.coords = {lg(rows), lg(mean), lg(skew), std::log2(1 + cv), scattered ? 2.0 : 0.0};
  c.label = fmt::format("rows 2^{} mean 2^{} max/mean 2^{} cv {:.1f}{}", bucket(c.coords[0]), bucket(c.coords[1]),
                        bucket(c.coords[2]), cv, scattered ? " scattered" : "");
  c.features = {{"rows", rows}, {"row_mean", mean}, {"row_max", max}, {"row_std", sd}};
  if (f.contains("cols") && f.contains("bandwidth")) {
    c.features["cols"] = f["cols"];
    c.features["bandwidth"] = f["bandwidth"];
  }
  return c;
}

// GEMM: log2 of m, n, k and whether a dimension leaves a partial 64-wide tile, which
// costs the tiled kernels their edge handling.
ProblemClass gemm_class(const nlohmann::json& f) {
  ProblemClass c;
  c.op = "gemm";
  const double m = number(f, "m", "gemm"), n = number(f, "n", "gemm"), k = number(f, "k", "gemm");
  const bool odd = std::fmod(m, 64) != 0 || std::fmod(n, 64) != 0 || std::fmod(k, 64) != 0;
  c.coords = {lg(m), lg(n), lg(k), odd ? 1.0 : 0.0};
  const double lo = std::min({m, n, k}), hi = std::max({m, n, k});
  std::string shape;
  if (hi <= 2 * lo) shape = "square";
  else if (k * 2 <= std::min(m, n) && std::max(m, n) <= 2 * std::min(m, n)) shape = "flat";
  else if (hi == m) shape = "tall";
  else if (hi == n) shape = "wide";
  else shape = "skinny";
  // Half-octave buckets per dimension: the label is the database's key, and shapes a
  // shipped campaign tunes apart (768 and 1024, 256x256x16384 and 512x512x8192) must not
  // share one.
  const auto half = [](double x) { return std::round(2 * lg(x)) / 2; };
  c.label = fmt::format("m 2^{:g} n 2^{:g} k 2^{:g} {}{}", half(m), half(n), half(k), shape, odd ? " odd" : "");
  c.features = {{"m", m}, {"n", n}, {"k", k}};
  return c;
}

// Every other op: log2 of each dimension, by name (the vector ops have just n).
ProblemClass dimension_class(const std::string& op, const nlohmann::json& f) {
  ProblemClass c;
  c.op = op;
  c.features = nlohmann::json::object();
  for (auto it = f.begin(); it != f.end(); ++it) {
    if (!it.value().is_number()) continue;
    c.coords.push_back(lg(it.value().get<double>()));
    c.label += fmt::format("{}{}=2^{}", c.label.empty() ? "" : " ", it.key(), bucket(c.coords.back()));
    c.features[it.key()] = it.value();
  }
  if (c.coords.empty()) throw Error(fmt::format("problem class of {}: no dimension given", op));
  return c;
}

}  // namespace

ProblemClass classify_features(const std::string& op, const nlohmann::json& features) {
  if (!features.is_object()) throw Error(fmt::format("problem class of {}: features must be an object", op));
  if (op == "spmv") return spmv_class(features);
  if (op == "gemm") return gemm_class(features);
  return dimension_class(op, features);
}

ProblemClass classify(const std::string& op, const Sizes& sizes, const nlohmann::json& features) {
  if (op == "spmv") return classify_features(op, features);
  // The dimensions of the op's signature; choices (layout, storage) are keys of their own.
  nlohmann::json dims = nlohmann::json::object();
  const OpSignature& sig = find_op(op).signature();
  for (const auto& a : sig.axes)
    if (a.kind == Axis::Kind::Dimension && sizes.count(a.name)) dims[a.name] = sizes.at(a.name);
  return classify_features(op, dims);
}

double distance(const ProblemClass& a, const ProblemClass& b) {
  if (a.op != b.op || a.coords.size() != b.coords.size()) return std::numeric_limits<double>::infinity();
  // SpMV: which kernel wins follows the row lengths (mean, max/mean, spread) far more
  // than the number of rows, which counts a quarter (measured on the H200: a matrix of
  // 2M rows of 20 random columns is nearer 1M rows of 8 than 2M rows of a 9-wide band).
  double s = 0;
  for (std::size_t i = 0; i < a.coords.size(); ++i) {
    const double w = a.op == "spmv" && i == 0 ? 0.25 : 1.0;
    s += w * w * (a.coords[i] - b.coords[i]) * (a.coords[i] - b.coords[i]);
  }
  return std::sqrt(s);
}

double reach(const std::string& op) { return op == "spmv" ? 1.0 : 2.0; }

double column_reach(const nlohmann::json& f) {
  const auto num = [&](const char* k) { return f.contains(k) && f[k].is_number() ? f[k].get<double>() : 0.0; };
  const double cols = num("cols");
  return cols > 0 ? num("bandwidth") / cols : 0;
}

}  // namespace hetbench::tuning
