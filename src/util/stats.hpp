// Statistics of repeated timings.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench {

struct Stats {
  std::size_t n = 0;
  double min = 0, max = 0, median = 0, mean = 0, stddev = 0;
  double ci95_lo = 0, ci95_hi = 0;  // Student-t interval for the mean
};

Stats compute_stats(std::vector<double> samples);
double student_t975(std::size_t dof);
nlohmann::json to_json(const Stats& s);

}  // namespace hetbench
