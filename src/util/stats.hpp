// Statistics of repeated timings.
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench {

struct Stats {
  std::size_t n = 0;
  double min = 0, max = 0, median = 0, mean = 0, stddev = 0;
  // The distribution-free interval of the median (median_ci_ranks): two of the samples,
  // so never below the smallest one (a Student-t interval of the mean goes negative on
  // skewed timings). ci_level is its exact confidence for continuous samples: at least
  // 0.95 from n = 6 on; below that the interval is [min, max] and the level lower.
  double ci95_lo = 0, ci95_hi = 0, ci_level = 0;
  // (ci95_hi - ci95_lo) / 2 / median; infinity when the median is not positive.
  double rel_half_width() const;
};

// 0-based ranks into the sorted sample of the interval [x(lo), x(hi)] for the median,
// and its confidence. With B ~ Binomial(n, 1/2) the number of samples below the true
// median, dropping the k smallest and the k largest samples covers the median with
// probability 1 - 2 P(B <= k); k is the largest with that at least `confidence` (Le
// Boudec, "Performance Evaluation of Computer and Communication Systems", section 2.2.1
// and table A.1; Hollander & Wolfe, "Nonparametric Statistical Methods", section 3.6).
// No assumption on the distribution beyond continuity; ties only widen the coverage.
struct RankInterval {
  std::size_t lo = 0, hi = 0;
  double level = 0;
};
RankInterval median_ci_ranks(std::size_t n, double confidence = 0.95);

// The median of the samples and its interval, in O(n) (selection, no full sort).
struct MedianInterval {
  double median = 0, lo = 0, hi = 0, level = 0;
  double rel_half_width() const;
};
MedianInterval median_interval(std::vector<double> samples);

Stats compute_stats(std::vector<double> samples);
// Whether timings `a` are shorter than `b` beyond the noise: their medians' intervals do
// not overlap. Otherwise the two are a tie at this many samples.
bool faster_beyond_noise(const Stats& a, const Stats& b);
nlohmann::json to_json(const Stats& s);

// Rounds of one measurement (docs/measurement.md): `counts` consecutive slices of
// `samples`; the median of each.
std::vector<double> round_medians(const std::vector<double>& samples, const std::vector<std::size_t>& counts);
// The spread between rounds: max / min - 1 of their medians (0 with fewer than two, or
// a median not positive). The level at which replays in other processes differ
// (Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time", 2013): compare widens
// its threshold to it.
double round_spread(const std::vector<double>& medians);

}  // namespace hetbench
