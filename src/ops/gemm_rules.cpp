#include "ops/gemm_rules.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hetbench::gemm_detail {

ClassCoords gemm_class(const nlohmann::json& f) {
  ClassCoords c;
  const double m = class_feature(f, "m", "gemm"), n = class_feature(f, "n", "gemm"), k = class_feature(f, "k", "gemm");
  const auto lg = [](double x) { return std::log2(std::max(x, 1.0)); };
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
  const auto half = [&](double x) { return std::round(2 * lg(x)) / 2; };
  c.label = fmt::format("m 2^{:g} n 2^{:g} k 2^{:g} {}{}", half(m), half(n), half(k), shape, odd ? " odd" : "");
  c.features = {{"m", m}, {"n", n}, {"k", k}};
  return c;
}

VariantPreference gemm_preference() {
  return {{"dmma", "regblock", "dw_tiled", "tiled", "naive", "dw"}, "rule: preferred own gemm variant"};
}

}  // namespace hetbench::gemm_detail
