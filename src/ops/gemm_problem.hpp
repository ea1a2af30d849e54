// The GEMM problem shared by the op (src/ops/gemm.cpp: sizes, S and D) and its
// double-word part (src/ops/gemm_dw.cpp: DF and DD): which elements are validated, and
// their references and magnitudes.
#pragma once

#include <cmath>
#include <functional>

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
// @erange=E: A's and B's magnitudes span 2^E (the seeded values of [1/16, 1) times
// 2^-j, j uniform in [0, E - 4]); the weak spot of the splitting schemes (docs/ozaki.md).
inline const Axis& erange_axis() {
  static const Axis a = Axis::choice("erange", {"4", "10", "20", "40"},
                                     "exponent range of A and B: magnitudes span 2^erange", false, /*optional=*/true);
  return a;
}
// @iter=N: the timed call multiplies N times, C = op(A)·op(B) each time (the plain form,
// so that the result is one product's and validates as one), as the loop of the OpenACC
// walk-through does around its data region (docs/directive-gemm.md). Opt-in: only the
// variants whose code loops declare it; the work (flops, bytes) is N products'.
inline constexpr std::int64_t kMaxIter = 1000;
inline const Axis& iter_axis() {
  static const Axis a = Axis::opt_in_dimension(
      "iter", 1, "the timed call multiplies iter times (the directive and host loops and cuBLAS implement it)");
  return a;
}
inline std::int64_t iterations(const Sizes& s) {
  auto it = s.find("iter");
  return it == s.end() ? 1 : it->second;
}
inline int erange(const Sizes& s) { return std::stoi(erange_axis().value(s)); }
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
  std::vector<long double> absab;  // (|A||B|)_ij per validated element
  // Per validated row of A and column of B (as binary64): e with max |x| < 2^e, and sum |x|.
  std::vector<int> row_e, col_e;
  std::vector<long double> row_abs, col_abs;
};

// Multiplies element i of a seeded array by 2^-j_i (every word of it: exact), j_i uniform
// in [0, E - 4], so that the magnitudes [1/16, 1) span 2^E. `words` per element, the
// second word `second` words after the first (interleaved: 1, two planes: count).
template <class Word>
void widen_exponents(ArrayOperand& a, std::size_t count, int E, std::uint64_t seed, std::uint64_t stream,
                     std::size_t words = 1, std::size_t second = 0) {
  if (E <= 4) return;
  Word* w = reinterpret_cast<Word*>(a.host.data());
  for (std::size_t i = 0; i < count; ++i) {
    const int j = static_cast<int>(splitmix64(seed ^ splitmix64((stream + 977) * 0x2545F4914F6CDD1Dull + i)) %
                                   static_cast<std::uint64_t>(E - 3));
    const std::size_t at = words == 1 ? i : (second == 1 ? 2 * i : i);
    w[at] = static_cast<Word>(std::ldexp(w[at], -j));
    if (words == 2) w[at + second] = static_cast<Word>(std::ldexp(w[at + second], -j));
  }
}

// The row and column statistics of the validated rows and columns; a(i, p) and b(p, j)
// give the inputs as binary64, as the scheme variants convert them.
template <class GetA, class GetB>
void fill_stats(GemmProblem& prob, std::size_t k, GetA a, GetB b) {
  auto stats = [&](const std::vector<std::size_t>& idx, auto get, std::vector<int>& e, std::vector<long double>& sum) {
    e.assign(idx.size(), 0);
    sum.assign(idx.size(), 0);
    for (std::size_t r = 0; r < idx.size(); ++r) {
      double mx = 0;
      for (std::size_t p = 0; p < k; ++p) {
        const double x = std::fabs(get(idx[r], p));
        mx = std::max(mx, x);
        sum[r] += x;
      }
      if (mx > 0) std::frexp(mx, &e[r]);
    }
  };
  stats(prob.rows, a, prob.row_e, prob.row_abs);
  stats(prob.cols, [&](std::size_t j, std::size_t p) { return b(p, j); }, prob.col_e, prob.col_abs);
}

// The splitting schemes' own bound (src/ops/gemm_scheme.cpp): when the outputs hold a
// "scheme" report, `check` (the precision's element check with another bound) runs with
// the scheme's bound; v (the precision's check) gets its result in bound and note, and
// fails where either bound is exceeded. ref_g: the reference's error per |mag|.
void check_scheme(const GemmProblem& prob, const Outputs& out, Validation& v, long double ref_g,
                  const std::function<Validation(const std::function<long double(std::size_t)>&)>& check);

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
