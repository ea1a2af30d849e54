// How much a tuning may spend: a number of evaluations ("--budget 40"), a fraction of the
// pruned space ("15%") or a time limit ("90s", "10m", "1h").
#pragma once

#include <cstddef>
#include <string>

namespace hetbench::tune {

struct Budget {
  enum class Kind { Evaluations, Fraction, Seconds } kind = Kind::Fraction;
  double value = 100;  // evaluations, percent or seconds
  std::string text = "100%";
  // The most evaluations in a space of `space` configurations (at least 1; the whole
  // space under a time limit).
  std::size_t evaluations(std::size_t space) const;
  // The time limit in seconds; 0 when the budget counts evaluations.
  double seconds() const { return kind == Kind::Seconds ? value : 0; }
};

// Throws Error naming the text when it is none of the forms above.
Budget parse_budget(const std::string& text);

}  // namespace hetbench::tune
