#include "util/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace hetbench {

namespace {

double relative(double lo, double hi, double median) {
  return median > 0 ? (hi - lo) / 2 / median : std::numeric_limits<double>::infinity();
}

}  // namespace

double Stats::rel_half_width() const { return relative(ci95_lo, ci95_hi, median); }
double MedianInterval::rel_half_width() const { return relative(lo, hi, median); }

RankInterval median_ci_ranks(std::size_t n, double confidence) {
  if (n == 0) return {};
  // The largest k with P(B <= k) <= alpha/2 gives [x(k+1), x(n-k)] (1-based), of
  // confidence 1 - 2 P(B <= k). The pmf is walked in logs: 2^-n underflows from n = 1075 on.
  const double tail = (1 - confidence) / 2;
  const double dn = static_cast<double>(n);
  double log_pmf = -dn * std::log(2.0);  // P(B = 0)
  double cdf = std::exp(log_pmf);        // P(B <= k)
  std::size_t k = 0;                     // the interval drops the k smallest and the k largest samples
  while (2 * (k + 1) < n) {
    log_pmf += std::log((dn - static_cast<double>(k)) / static_cast<double>(k + 1));  // P(B = k + 1)
    const double next = cdf + std::exp(log_pmf);
    if (next > tail) break;
    cdf = next;
    ++k;
  }
  return {k, n - 1 - k, 1 - 2 * cdf};
}

MedianInterval median_interval(std::vector<double> x) {
  MedianInterval m;
  const std::size_t n = x.size();
  if (n == 0) return m;
  const RankInterval r = median_ci_ranks(n);
  auto at = [&](std::size_t i) {
    std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(i), x.end());
    return x[i];
  };
  // Selections in increasing rank order, each one's prefix already partitioned.
  m.lo = at(r.lo);
  const double upper_mid = at(n / 2);
  m.median = n % 2 ? upper_mid : 0.5 * (*std::max_element(x.begin(), x.begin() + n / 2) + upper_mid);
  m.hi = at(r.hi);
  m.level = r.level;
  return m;
}

Stats compute_stats(std::vector<double> x) {
  Stats s;
  s.n = x.size();
  if (x.empty()) return s;
  std::sort(x.begin(), x.end());
  s.min = x.front();
  s.max = x.back();
  s.median = x.size() % 2 ? x[x.size() / 2] : 0.5 * (x[x.size() / 2 - 1] + x[x.size() / 2]);
  s.mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += (v - s.mean) * (v - s.mean);
  s.stddev = x.size() > 1 ? std::sqrt(ss / static_cast<double>(x.size() - 1)) : 0.0;
  const RankInterval r = median_ci_ranks(x.size());
  s.ci95_lo = x[r.lo];
  s.ci95_hi = x[r.hi];
  s.ci_level = r.level;
  return s;
}

bool faster_beyond_noise(const Stats& a, const Stats& b) { return a.n > 0 && b.n > 0 && a.ci95_hi < b.ci95_lo; }

nlohmann::json to_json(const Stats& s) {
  return {{"n", s.n},           {"min", s.min},         {"max", s.max},         {"median", s.median},
          {"mean", s.mean},     {"stddev", s.stddev},   {"ci95_lo", s.ci95_lo}, {"ci95_hi", s.ci95_hi},
          {"ci_level", s.ci_level}};
}

std::vector<double> round_medians(const std::vector<double>& samples, const std::vector<std::size_t>& counts) {
  std::vector<double> out;
  std::size_t at = 0;
  for (auto n : counts) {
    if (n == 0 || at + n > samples.size()) break;
    out.push_back(median_interval({samples.begin() + static_cast<std::ptrdiff_t>(at),
                                   samples.begin() + static_cast<std::ptrdiff_t>(at + n)})
                      .median);
    at += n;
  }
  return out;
}

double round_spread(const std::vector<double>& medians) {
  if (medians.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  return *lo > 0 ? *hi / *lo - 1 : 0;
}

}  // namespace hetbench
