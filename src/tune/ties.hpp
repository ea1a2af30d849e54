// The best configuration when measurements are noisy: two configurations differ only when
// their confidence intervals do not overlap; among those tied with the fastest, the
// simplest wins (Space::simpler: fewest parameters off their default, then smaller values).
#pragma once

#include <cstddef>
#include <vector>

#include "tune/space.hpp"

namespace hetbench::tune {

// One evaluated configuration: its median time and the confidence interval of it
// (seconds). An invalid configuration has valid = false and never wins.
struct Measured {
  std::size_t config = 0;
  bool valid = false;
  double median = 0, lo = 0, hi = 0;
};

struct Pick {
  bool found = false;  // false when no configuration was valid
  std::size_t best = 0;     // index into the Measured list: the configuration kept
  std::size_t fastest = 0;  // index of the lowest median
  std::vector<std::size_t> tied;  // indices whose interval overlaps the fastest's, the fastest included
};

Pick pick_best(const std::vector<Measured>& m, const Space& space);

}  // namespace hetbench::tune
