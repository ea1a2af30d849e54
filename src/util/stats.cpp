#include "util/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hetbench {

double student_t975(std::size_t dof) {
  static const double t[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080, 2.074,  2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof == 0) return INFINITY;
  if (dof <= 30) return t[dof];
  if (dof <= 60) return 2.000 + (2.042 - 2.000) * (60.0 - dof) / 30.0;
  if (dof <= 120) return 1.980 + (2.000 - 1.980) * (120.0 - dof) / 60.0;
  return 1.960;
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
  double half = x.size() > 1 ? student_t975(x.size() - 1) * s.stddev / std::sqrt(static_cast<double>(x.size())) : 0;
  s.ci95_lo = s.mean - half;
  s.ci95_hi = s.mean + half;
  return s;
}

nlohmann::json to_json(const Stats& s) {
  return {{"n", s.n},         {"min", s.min},       {"max", s.max},       {"median", s.median},
          {"mean", s.mean},   {"stddev", s.stddev}, {"ci95_lo", s.ci95_lo}, {"ci95_hi", s.ci95_hi}};
}

}  // namespace hetbench
