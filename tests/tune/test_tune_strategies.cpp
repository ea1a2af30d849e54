// The search strategies on synthetic objectives (no device): budgets, the cache, pruned
// spaces, invalid points, finding the optimum, ties, and a deterministic replay.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "hetbench/error.hpp"
#include "tune/budget.hpp"
#include "tune/search.hpp"
#include "tune/ties.hpp"

using namespace hetbench::tune;
namespace tune = hetbench::tune;

namespace {

// An n x n grid of values 1..n per axis, default at index 2; `pruned` removes the
// configurations for which it returns true (a constraint).
template <class Pruned>
Space grid(int n, Pruned pruned) {
  std::vector<tune::Axis> axes;
  for (const char* name : {"A", "B"}) {
    tune::Axis a{name, {}, 2};
    for (int v = 1; v <= n; ++v) a.values.push_back(v * 8);
    axes.push_back(a);
  }
  std::vector<Config> configs;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (!pruned(i, j)) configs.push_back({i, j});
  return Space(axes, configs);
}
Space grid(int n) {
  return grid(n, [](int, int) { return false; });
}

// A smooth hill with its top at (11, 4), seeded noise-free; higher is better.
double hill(const Space& s, std::size_t i) {
  const auto& c = s.config(i);
  const double dx = c[0] - 11, dy = c[1] - 4;
  return 100 / (1 + 0.05 * dx * dx + 0.08 * dy * dy + 0.01 * dx * dy);
}

}  // namespace

TEST(TuneBudget, ParsesTheThreeForms) {
  auto b = parse_budget("40");
  EXPECT_EQ(b.kind, Budget::Kind::Evaluations);
  EXPECT_EQ(b.evaluations(100), 40u);
  EXPECT_EQ(b.evaluations(10), 10u);
  b = parse_budget("15%");
  EXPECT_EQ(b.kind, Budget::Kind::Fraction);
  EXPECT_EQ(b.evaluations(200), 30u);
  EXPECT_EQ(b.evaluations(3), 1u);  // at least one
  EXPECT_EQ(parse_budget("10m").seconds(), 600);
  EXPECT_EQ(parse_budget("90s").seconds(), 90);
  EXPECT_EQ(parse_budget("1.5h").seconds(), 5400);
  EXPECT_EQ(parse_budget("90s").evaluations(77), 77u);
  for (const char* bad : {"", "x", "-3", "0", "2.5", "150%", "10d", "5 m"})
    EXPECT_THROW(parse_budget(bad), hetbench::Error) << bad;
}

TEST(TuneSpace, NeighboursStayInsideAndSkipPruned) {
  const Space s = grid(4, [](int i, int j) { return i == 1 && j == 1; });
  EXPECT_EQ(s.size(), 15u);
  EXPECT_EQ(s.find({1, 1}), s.size());
  const auto corner = s.find({0, 0});
  std::set<Config> nb;
  for (auto j : s.neighbours(corner)) nb.insert(s.config(j));
  EXPECT_EQ(nb, (std::set<Config>{{1, 0}, {0, 1}}));
  nb.clear();
  for (auto j : s.neighbours(s.find({1, 2}))) nb.insert(s.config(j));
  EXPECT_EQ(nb, (std::set<Config>{{0, 2}, {2, 2}, {1, 3}}));  // (1,1) is pruned
  EXPECT_EQ(s.hamming_neighbours(s.find({0, 1})).size(), 5u);  // 3 along A less (1,1), 3 along B
}

TEST(TuneSpace, SimplerMeansNearerTheDefaultThenSmaller) {
  const Space s = grid(4);
  const auto def = s.find({2, 2}), one_off = s.find({0, 2}), two_off = s.find({0, 0}), one_off_big = s.find({3, 2});
  EXPECT_TRUE(s.simpler(def, one_off));
  EXPECT_TRUE(s.simpler(one_off, two_off));
  EXPECT_TRUE(s.simpler(one_off, one_off_big));
  EXPECT_FALSE(s.simpler(one_off_big, one_off));
  EXPECT_EQ(s.values(def), (std::map<std::string, long long>{{"A", 24}, {"B", 24}}));
}

TEST(TuneSearch, EveryStrategyKeepsItsBudgetAndNeverEvaluatesTwice) {
  const Space s = grid(9, [](int i, int j) { return (i + j) % 5 == 0; });
  for (const auto& name : strategy_names())
    for (std::size_t budget : {1u, 7u, 30u, 1000u}) {
      std::map<std::size_t, int> calls;
      Search search(s, [&](std::size_t i) { ++calls[i]; return hill(s, i); }, budget);
      run_strategy(name, search, 42);
      const std::size_t expect = std::min(budget, s.size());
      EXPECT_EQ(search.order().size(), expect) << name << " budget " << budget;
      EXPECT_EQ(calls.size(), expect) << name;
      for (auto [i, n] : calls) EXPECT_EQ(n, 1) << name << " evaluated " << i << " twice";
    }
}

TEST(TuneSearch, SamplingStrategiesMeasureTheDefaultsFirst) {
  const Space s = grid(9);
  const std::size_t def = s.find({2, 2});
  for (const auto& name : strategy_names()) {
    if (name == "exhaustive") continue;
    Search search(s, [&](std::size_t i) { return hill(s, i); }, 5);
    run_strategy(name, search, 7);
    ASSERT_FALSE(search.order().empty()) << name;
    EXPECT_EQ(search.order().front(), def) << name;
  }
  // Defaults outside the space (pruned by a constraint): the strategy starts as it would.
  const Space pruned = grid(9, [](int i, int j) { return i == 2 && j == 2; });
  Search search(pruned, [&](std::size_t i) { return hill(pruned, i); }, 5);
  run_strategy("random", search, 7);
  EXPECT_EQ(search.order().size(), 5u);
}

TEST(TuneSearch, StartsComeAfterTheDefaultsAndAnnealingWalksFromTheBest) {
  const Space s = grid(12);
  const std::size_t def = s.find({2, 2}), start = s.find({10, 4}), worse = s.find({0, 11});
  for (const auto& name : strategy_names()) {
    if (name == "exhaustive") continue;
    Search search(s, [&](std::size_t i) { return hill(s, i); }, 6);
    run_strategy(name, search, 9, {worse, start, s.size(), start});  // out of range and repeated: ignored
    ASSERT_GE(search.order().size(), 4u) << name;
    EXPECT_EQ(search.order()[0], def) << name;
    EXPECT_EQ(search.order()[1], worse) << name;
    EXPECT_EQ(search.order()[2], start) << name;
    if (name == "annealing") {
      // The walk's first step is a neighbour of the best measured so far (the start near
      // the top), not a random configuration.
      const auto nb = s.neighbours(start);
      EXPECT_NE(std::find(nb.begin(), nb.end(), search.order()[3]), nb.end());
    }
  }
  // A budget the starts use up: nothing beyond it.
  Search search(s, [&](std::size_t i) { return hill(s, i); }, 2);
  run_strategy("annealing", search, 9, {worse, start});
  EXPECT_EQ(search.order(), (std::vector<std::size_t>{def, worse}));
}

TEST(TuneSearch, InvalidConfigurationsDoNotStopTheSearch) {
  const Space s = grid(8);
  for (const auto& name : strategy_names()) {
    // Two thirds of the space fail (a build error, a failed validation).
    Search search(s, [&](std::size_t i) { return i % 3 ? kInvalid : hill(s, i); }, 40);
    run_strategy(name, search, 7);
    EXPECT_EQ(search.order().size(), 40u) << name;
  }
}

TEST(TuneSearch, GuidedStrategiesBeatRandomSamplingOnAHill) {
  const Space s = grid(16);  // 256 configurations, the top is at (11, 4) and alone above 97%
  double top = 0;
  for (std::size_t i = 0; i < s.size(); ++i) top = std::max(top, hill(s, i));
  std::map<std::string, double> mean;
  std::map<std::string, int> hits;
  for (const char* name : {"random", "annealing", "genetic", "bayes"})
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      Search search(s, [&](std::size_t i) { return hill(s, i); }, 38);  // 15%
      run_strategy(name, search, seed);
      double best = kInvalid;
      for (auto i : search.order()) best = std::max(best, search.value(i));
      mean[name] += best / top / 20;
      hits[name] += best >= 0.97 * top;
    }
  // Random sampling of 15% finds the top with probability 1-(255/256)^38, about 0.14.
  EXPECT_GT(mean["annealing"], mean["random"]);
  EXPECT_GT(mean["genetic"], mean["random"]);
  EXPECT_GE(hits["annealing"], 15);
  EXPECT_GT(hits["genetic"], hits["random"]);
  EXPECT_GT(mean["bayes"], mean["random"]);
  EXPECT_GT(hits["bayes"], hits["random"]);
  for (auto& [k, v] : mean) std::printf("%s: mean best %.3f of the top, top found %d/20\n", k.c_str(), v, hits[k]);
}

// The population follows the budget: a 15 % budget of one SpMV kernel's space (6 to 9
// evaluations) gets 4, not 2; large budgets stop at Kernel Tuner's 30, small spaces at half.
TEST(TuneSearch, GeneticPopulationFollowsTheBudget) {
  EXPECT_EQ(genetic_population(50, 6), 4u);
  EXPECT_EQ(genetic_population(90, 9), 4u);
  EXPECT_EQ(genetic_population(97, 15), 5u);
  EXPECT_EQ(genetic_population(256, 38), 9u);
  EXPECT_EQ(genetic_population(10000, 100), 14u);
  EXPECT_EQ(genetic_population(10000, 5000), 30u);
  EXPECT_EQ(genetic_population(6, 100), 3u);
  EXPECT_EQ(genetic_population(3, 100), 2u);
  EXPECT_EQ(genetic_population(1, 100), 1u);
}

// With the budget of a small space's 15 %, the genetic search is no worse than random
// sampling on average (it was, with its population of 2).
TEST(TuneSearch, GeneticWithASmallBudgetIsNoWorseThanRandom) {
  const Space s = grid(10);  // 100 configurations
  double top = 0;
  for (std::size_t i = 0; i < s.size(); ++i) top = std::max(top, hill(s, i));
  std::map<std::string, double> mean;
  for (const char* name : {"random", "genetic"})
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      Search search(s, [&](std::size_t i) { return hill(s, i); }, 15);
      run_strategy(name, search, seed);
      double best = kInvalid;
      for (auto i : search.order()) best = std::max(best, search.value(i));
      mean[name] += best / top / 40;
    }
  std::printf("budget 15 of 100: random %.3f, genetic %.3f of the top\n", mean["random"], mean["genetic"]);
  EXPECT_GE(mean["genetic"], mean["random"] - 0.01);
}

TEST(TuneSearch, ASeedReplaysTheSameSearch) {
  const Space s = grid(12, [](int i, int j) { return i * j > 90; });
  for (const auto& name : strategy_names()) {
    std::vector<std::vector<std::size_t>> orders;
    for (std::uint64_t seed : {5u, 5u, 6u}) {
      Search search(s, [&](std::size_t i) { return hill(s, i); }, 50);
      run_strategy(name, search, seed);
      orders.push_back(search.order());
    }
    EXPECT_EQ(orders[0], orders[1]) << name;
    if (name != "exhaustive") EXPECT_NE(orders[0], orders[2]) << name;
  }
}

// What resume relies on: a search stopped after k evaluations and run again from the same
// seed, with the k known values taken from a cache, continues exactly as one that never
// stopped.
TEST(TuneSearch, AnInterruptedSearchReplaysFromItsCacheAndContinues) {
  const Space s = grid(12, [](int i, int j) { return (i ^ j) == 3; });
  for (const auto& name : strategy_names())
    for (std::size_t k : {1u, 9u, 23u}) {
      Search whole(s, [&](std::size_t i) { return hill(s, i) + (i % 7); }, 40);
      run_strategy(name, whole, 11);
      std::map<std::size_t, double> cache;
      Search first(s, [&](std::size_t i) { return cache[i] = hill(s, i) + (i % 7); }, 40,
                   [&] { return cache.size() >= k; });
      run_strategy(name, first, 11);
      ASSERT_EQ(first.order().size(), k) << name;
      int measured = 0;
      Search resumed(s, [&](std::size_t i) {
        if (cache.count(i)) return cache[i];
        ++measured;
        return hill(s, i) + (i % 7);
      }, 40);
      run_strategy(name, resumed, 11);
      EXPECT_EQ(resumed.order(), whole.order()) << name << " stopped after " << k;
      EXPECT_EQ(measured, 40 - static_cast<int>(k)) << name;
    }
}

TEST(TuneTies, OverlappingIntervalsKeepTheSimplerConfiguration) {
  const Space s = grid(4);
  const auto def = s.find({2, 2}), far = s.find({3, 3}), other = s.find({0, 0});
  // far is fastest, but its interval overlaps the default's: a tie, the default is kept.
  std::vector<Measured> m{{far, true, 1.00, 0.95, 1.05}, {def, true, 1.02, 0.99, 1.06}, {other, true, 2, 1.9, 2.1},
                          {s.find({1, 1}), false, 0, 0, 0}};
  Pick p = pick_best(m, s);
  ASSERT_TRUE(p.found);
  EXPECT_EQ(p.fastest, 0u);
  EXPECT_EQ(p.best, 1u);
  EXPECT_EQ(p.tied, (std::vector<std::size_t>{0, 1}));
  // Separated intervals: the fastest wins although it is less simple.
  m[1] = {def, true, 1.2, 1.1, 1.3};
  p = pick_best(m, s);
  EXPECT_EQ(p.best, 0u);
  EXPECT_EQ(p.tied, (std::vector<std::size_t>{0}));
  // Nothing valid: nothing found.
  EXPECT_FALSE(pick_best({{def, false, 0, 0, 0}}, s).found);
}
