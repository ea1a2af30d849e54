// The GEMM problem shared by the op (src/ops/gemm.cpp: sizes, S and D) and its
// double-word part (src/ops/gemm_dw.cpp: DF and DD): which elements are validated, and
// their references and magnitudes.
#pragma once

#include <set>

#include "ops/double_word.hpp"
#include "ops/gemm_storage.hpp"

namespace hetbench::gemm_detail {

// Whether A (ta) and B (tb) are stored transposed: the layout suffix @NN, @NT, @TN, @TT.
inline const Axis& trans_a_axis() {
  static const Axis a = Axis::choice("ta", {"N", "T"}, "A stored transposed (k x m)");
  return a;
}
inline const Axis& trans_b_axis() {
  static const Axis a = Axis::choice("tb", {"N", "T"}, "B stored transposed (n x k)");
  return a;
}
// @plain: C = op(A)·op(B), that is α = 1 and β = 0 with C only written: the form of
// kernels that take no α and β (GEMMbench's Lift-generated entries). S and D.
inline const Axis& form_axis() {
  static const Axis a = Axis::choice("form", {"scaled", "plain"}, "scaled: alpha*op(A)*op(B) + beta*C; plain: op(A)*op(B)",
                                     /*indicators=*/true, /*optional=*/true);
  return a;
}
inline bool trans_a(const Sizes& s) { return trans_a_axis().index(s) != 0; }
inline bool trans_b(const Sizes& s) { return trans_b_axis().index(s) != 0; }
inline bool plain_form(const Sizes& s) { return form_axis().index(s) != 0; }

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
