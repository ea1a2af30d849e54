// The genetic algorithm of Kernel Tuner (van Werkhoven, "Kernel Tuner: A search-optimizing
// GPU code auto-tuner"; its strategies/genetic_algorithm.py), with its defaults: a
// population sized from the budget (genetic_population), parents drawn by rank with a Beta(1, 2.5) variate (the
// fittest most often), uniform crossover, and a 1-in-20 mutation to a random Hamming
// neighbour. Two changes, because here the budget rather than a generation count ends
// the search: a generation that could not be filled with valid children, or that holds
// nothing new, takes random configurations not evaluated yet (immigrants), so the search
// never stalls on cached configurations. And the first generation holds the starts
// (run_strategy), the rest immigrants.
#include <algorithm>
#include <cmath>
#include <utility>

#include "tune/search.hpp"

namespace hetbench::tune {

namespace {

std::size_t rank_index(Rng& rng, std::size_t n) {
  const double beta = 1 - std::pow(1 - uniform01(rng), 1 / 2.5);  // Beta(1, 2.5)
  return std::min(n - 1, static_cast<std::size_t>(beta * n));
}

bool contains(const std::vector<std::size_t>& v, std::size_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

void add_immigrants(Search& s, Rng& rng, std::vector<std::size_t>& pop, std::size_t upto) {
  for (std::size_t tries = 0; pop.size() < upto && tries < 4 * upto + 8; ++tries) {
    const std::size_t u = s.random_unseen(rng);
    if (u == s.space().size()) return;
    if (!contains(pop, u)) pop.push_back(u);
  }
}

}  // namespace

std::size_t genetic_population(std::size_t space, std::size_t budget) {
  // Kernel Tuner sizes the population from what it may evaluate (its default 26, at most
  // half the space). Here the budget is what may be evaluated: a population of about
  // sqrt(2 budget) spends the budget in as many generations as half the population, wide
  // enough for crossover to mix and long enough for selection to act. (A fifth of the
  // budget, before, gave 2 for the 6 to 9 evaluations a 15 % budget of one SpMV kernel
  // allows: on the H200 that reached 0.825 and 0.909 of the exhaustive best.)
  const auto from_budget = static_cast<std::size_t>(std::lround(std::sqrt(2.0 * static_cast<double>(budget))));
  const auto half_space = static_cast<std::size_t>(std::lround(static_cast<double>(space) / 2));
  return std::min(space, std::max<std::size_t>(2, std::min<std::size_t>({30, half_space, std::max<std::size_t>(4, from_budget)})));
}

void genetic(Search& s, Rng& rng, const std::vector<std::size_t>& starts) {
  const Space& sp = s.space();
  if (sp.size() == 0) return;
  const std::size_t pop_size = genetic_population(sp.size(), s.budget());
  const std::size_t mutation_chance = 20;
  std::vector<std::size_t> pop;
  for (auto i : starts)
    if (i < sp.size() && pop.size() < pop_size && !contains(pop, i)) pop.push_back(i);
  add_immigrants(s, rng, pop, pop_size);
  while (!s.done() && !pop.empty()) {
    std::vector<std::pair<std::size_t, double>> ranked;
    for (auto c : pop) {
      auto f = s.evaluate(c);
      if (!f) return;
      ranked.emplace_back(c, *f);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    pop.clear();
    for (std::size_t attempts = 0; pop.size() < pop_size && attempts < 100 * pop_size; ++attempts) {
      std::size_t i = rank_index(rng, ranked.size()), j = rank_index(rng, ranked.size());
      for (int redraw = 0; j == i && ranked.size() > 1 && redraw < 100; ++redraw) j = rank_index(rng, ranked.size());
      const Config& a = sp.config(ranked[i].first);
      const Config& b = sp.config(ranked[j].first);
      Config c1 = a, c2 = b;
      for (std::size_t g = 0; g < a.size(); ++g)
        if (uniform01(rng) > 0.5) std::swap(c1[g], c2[g]);
      for (Config* child : {&c1, &c2}) {
        std::size_t idx = sp.find(*child);
        if (idx != sp.size() && uniform_index(rng, mutation_chance) == 0) {
          auto nb = sp.hamming_neighbours(idx);
          if (!nb.empty()) idx = nb[uniform_index(rng, nb.size())];
        }
        if (idx != sp.size() && !contains(pop, idx)) pop.push_back(idx);
        if (pop.size() >= pop_size) break;
      }
    }
    add_immigrants(s, rng, pop, pop_size);
    if (std::all_of(pop.begin(), pop.end(), [&](std::size_t c) { return s.seen(c); })) {
      pop.resize(pop.size() / 2);
      add_immigrants(s, rng, pop, pop_size);
      if (std::all_of(pop.begin(), pop.end(), [&](std::size_t c) { return s.seen(c); })) return;
    }
  }
}

}  // namespace hetbench::tune
