#include "tune/budget.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench::tune {

std::size_t Budget::evaluations(std::size_t space) const {
  switch (kind) {
    case Kind::Evaluations: return std::min(space, static_cast<std::size_t>(value));
    case Kind::Fraction:
      return std::min(space, std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(value / 100 * space - 1e-9))));
    case Kind::Seconds: break;
  }
  return space;
}

Budget parse_budget(const std::string& text) {
  auto bad = [&](const char* why) {
    return Error(fmt::format("--budget '{}': {} (expected evaluations such as 40, a fraction of the space such as "
                             "15%, or a time limit such as 90s, 10m or 1h)",
                             text, why));
  };
  if (text.empty()) throw bad("empty");
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad("not a number");
  }
  const std::string unit = text.substr(used);
  if (!std::isfinite(v) || v <= 0) throw bad("must be positive");
  Budget b;
  b.text = text;
  b.value = v;
  if (unit.empty()) {
    if (v != std::floor(v)) throw bad("a number of evaluations must be whole");
    b.kind = Budget::Kind::Evaluations;
  } else if (unit == "%") {
    if (v > 100) throw bad("a fraction above 100%");
    b.kind = Budget::Kind::Fraction;
  } else if (unit == "s" || unit == "m" || unit == "h") {
    b.kind = Budget::Kind::Seconds;
    b.value = v * (unit == "s" ? 1 : unit == "m" ? 60 : 3600);
  } else {
    throw bad("unknown unit");
  }
  return b;
}

}  // namespace hetbench::tune
