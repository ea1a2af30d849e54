#include "hetbench/precision.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench {

namespace {
// DF and DD: the effective unit roundoffs of double-word arithmetic (docs/precision.md).
const std::array<PrecisionInfo, 5> kInfo{{
    {Precision::S, "S", 4, 0x1p-24, "float", false},
    {Precision::D, "D", 8, 0x1p-53, "double", true},
    {Precision::DF, "DF", 8, 0x1p-48, "float", false},
    {Precision::DD, "DD", 16, 0x1p-106, "double", true},
    {Precision::I32, "I32", 4, 0, "uint", false},
}};
}  // namespace

const PrecisionInfo& info(Precision p) { return kInfo[static_cast<int>(p)]; }

Precision parse_precision(std::string_view s) {
  for (const auto& i : kInfo)
    if (s == i.name) return i.p;
  if (s == "s" || s == "single" || s == "float") return Precision::S;
  if (s == "d" || s == "double") return Precision::D;
  if (s == "i32" || s == "int32" || s == "INT32") return Precision::I32;
  throw Error(fmt::format("unknown precision '{}': expected S, D, DF, DD or I32", s));
}

std::vector<Precision> parse_precisions(std::string_view list) {
  std::vector<Precision> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    auto tok = list.substr(start, end - start);
    if (tok.empty()) throw Error(fmt::format("empty entry in precision list '{}'", list));
    auto p = parse_precision(tok);
    bool dup = false;
    for (auto q : out) dup |= q == p;
    if (!dup) out.push_back(p);
    start = end + 1;
  }
  return out;
}

double gamma_n(double n, double u) {
  const double nu = n * u;
  return nu <= 0.5 ? nu / (1.0 - nu) : nu;
}

}  // namespace hetbench
