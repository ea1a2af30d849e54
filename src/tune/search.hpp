// What a strategy sees: a space, an objective behind a cache (a configuration is never
// evaluated twice) and a budget. Higher objective values are better; kInvalid marks a
// configuration that failed (validation, build, launch) and is worse than any other.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tune/space.hpp"

namespace hetbench::tune {

inline constexpr double kInvalid = -std::numeric_limits<double>::infinity();

// The strategies' random numbers: mt19937_64 is specified bit for bit by the standard,
// and the helpers below avoid the library-defined distributions, so a seed replays the
// same search on any build (resume depends on it).
using Rng = std::mt19937_64;
inline double uniform01(Rng& r) { return static_cast<double>(r() >> 11) * 0x1p-53; }
inline std::size_t uniform_index(Rng& r, std::size_t n) { return static_cast<std::size_t>(uniform01(r) * n); }

class Search {
 public:
  using Objective = std::function<double(std::size_t)>;
  using Stop = std::function<bool()>;  // a time limit or an interrupt
  Search(const Space& space, Objective f, std::size_t max_evaluations, Stop stop = {});

  // The objective of configuration i, from the cache when it was evaluated before;
  // nullopt when it was not and the search is done.
  std::optional<double> evaluate(std::size_t i);
  bool done() const;
  std::size_t budget() const { return max_; }
  const Space& space() const { return space_; }
  bool seen(std::size_t i) const { return seen_[i]; }
  // Configurations in the order of their first evaluation.
  const std::vector<std::size_t>& order() const { return order_; }
  double value(std::size_t i) const { return values_[i]; }
  // A configuration not evaluated yet, uniformly; space().size() when none is left.
  std::size_t random_unseen(Rng& rng) const;

 private:
  const Space& space_;
  Objective f_;
  std::size_t max_;
  Stop stop_;
  std::vector<char> seen_;
  std::vector<double> values_;
  std::vector<std::size_t> order_;
};

// exhaustive, random, annealing, genetic, bayes (docs/tuning.md).
const std::vector<std::string>& strategy_names();
// Throws Error naming the strategy when it is unknown.
void check_strategy(const std::string& name);
// Runs the strategy until the search is done. Every strategy but exhaustive measures the
// metadata defaults first, then `starts` (configurations known to be good elsewhere, e.g.
// a tuning database's entries for nearby problems); annealing walks from the best start,
// the genetic algorithm's first generation holds the starts, and the model search counts
// the defaults and the starts among its first samples.
void run_strategy(const std::string& name, Search& s, std::uint64_t seed, const std::vector<std::size_t>& starts = {});
// The genetic algorithm's population for a space and budget of evaluations: about
// sqrt(2 budget), at least 4, at most 30 and half the space (docs/tuning.md).
std::size_t genetic_population(std::size_t space, std::size_t budget);

}  // namespace hetbench::tune
