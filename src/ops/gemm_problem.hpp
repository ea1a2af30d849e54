// The GEMM problem shared by the op (src/ops/gemm.cpp: sizes, S and D) and its
// double-word part (src/ops/gemm_dw.cpp: DF and DD): which elements are validated, and
// their references and magnitudes.
#pragma once

#include <set>

#include "ops/double_word.hpp"

namespace hetbench::gemm_detail {

constexpr double kFullLimit = 134217728.0;  // 2^27 multiply-adds
constexpr std::size_t kSample = 64;

struct GemmProblem final : Problem {
  std::vector<std::size_t> rows, cols;  // the validated rows and columns (all when not sampled)
  bool sampled = false;
  // Per validated element: reference (long double for S and D; ref_dw, in dw_ref_t, for
  // DF and DD) and magnitude |α|(|A||B|)_ij + |β||c_ij|.
  std::vector<long double> ref, mag;
  std::vector<quad_t> ref_dw;
};

// `count` distinct indices of [0, n), sorted, always with 0 and n−1; all when n ≤ count.
inline std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed,
                                               std::uint64_t stream) {
  std::set<std::size_t> s;
  if (n <= count) {
    for (std::size_t i = 0; i < n; ++i) s.insert(i);
  } else {
    s.insert(0);
    s.insert(n - 1);
    for (std::uint64_t i = 0; s.size() < count; ++i) s.insert(splitmix64(seed ^ splitmix64(stream * 0x9E37ull + i)) % n);
  }
  return {s.begin(), s.end()};
}

// All of C, or above m·n·k = 2^27 a seeded sample of 64 rows × 64 columns.
inline void choose_checked(GemmProblem& prob, std::size_t m, std::size_t n, std::size_t k, std::uint64_t seed) {
  prob.sampled = static_cast<double>(m) * n * k > kFullLimit;
  if (prob.sampled) {
    prob.rows = sample_indices(m, kSample, seed, 6);
    prob.cols = sample_indices(n, kSample, seed, 7);
  } else {
    prob.rows.resize(m);
    prob.cols.resize(n);
    for (std::size_t i = 0; i < m; ++i) prob.rows[i] = i;
    for (std::size_t j = 0; j < n; ++j) prob.cols[j] = j;
  }
}

inline std::string sample_note(const GemmProblem& prob) {
  const std::size_t m = static_cast<std::size_t>(prob.sizes.at("m")), n = static_cast<std::size_t>(prob.sizes.at("n"));
  return prob.sampled ? fmt::format("sampled {} of {} elements ({} rows x {} columns)",
                                    prob.rows.size() * prob.cols.size(), m * n, prob.rows.size(), prob.cols.size())
                      : std::string();
}

// DF and DD (src/ops/gemm_dw.cpp).
std::unique_ptr<Problem> make_dw_problem(const Sizes& s, Precision p, std::uint64_t seed);
Validation validate_dw(const GemmProblem& prob, const Outputs& out);

}  // namespace hetbench::gemm_detail
