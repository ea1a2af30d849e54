#include "solve/true_residual.hpp"

#include <algorithm>
#include <cmath>

#include "ops/double_word.hpp"

namespace hetbench {

namespace {

struct Sums {
  double r = 0, mag = 0, b = 0;  // ||b − A·x||₂, || |b| + |A|·|x| ||₂, ||b||₂
  int row_max = 0;
};

// Each row in R (long double, or binary128 where x carries DD's 106 bits).
template <class R>
Sums sums(const CsrMatrix& a, const std::vector<double>& b, const DwVector& x) {
  const auto rows = static_cast<std::int64_t>(a.rows);
  long double r2 = 0, m2 = 0, b2 = 0;
  int row_max = 0;
  // Per-thread partial sums added under a lock, not an OpenMP reduction: clang's
  // reduction of a long double is a 16-byte atomic compare-exchange, which needs
  // libatomic (the sanitized build would not link).
#pragma omp parallel
  {
    long double r2t = 0, m2t = 0, b2t = 0;
    int row_max_t = 0;
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < rows; ++i) {
      R s = b[i], m = std::fabs(b[i]);
      for (auto q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q) {
        const auto j = a.colidx[q];
        const R xj = static_cast<R>(x.hi[j]) + (x.lo.empty() ? R(0) : static_cast<R>(x.lo[j]));
        const R t = static_cast<R>(a.values[q]) * xj;
        s -= t;
        m += t < 0 ? -t : t;
      }
      const auto sl = static_cast<long double>(s), ml = static_cast<long double>(m);
      r2t += sl * sl;
      m2t += ml * ml;
      b2t += static_cast<long double>(b[i]) * b[i];
      row_max_t = std::max(row_max_t, a.rowptr[i + 1] - a.rowptr[i]);
    }
#pragma omp critical(hetbench_true_residual)
    {
      r2 += r2t;
      m2 += m2t;
      b2 += b2t;
      row_max = std::max(row_max, row_max_t);
    }
  }
  return {static_cast<double>(std::sqrt(r2)), static_cast<double>(std::sqrt(m2)), static_cast<double>(std::sqrt(b2)),
          row_max};
}

TrueResidual finish(const Sums& s, double extra, std::string words) {
  TrueResidual t;
  const double b = s.b > 0 ? s.b : 1;
  t.norm = s.r;
  t.rel = s.r / b;
  t.rel_bound = extra;
  t.bound = std::move(words);
  return t;
}

}  // namespace

TrueResidual krylov_true_residual(const CsrMatrix& a, const std::vector<double>& b, const DwVector& x, Precision p,
                                  double tol, long iterations) {
  const auto s = sums<long double>(a, b, x);
  const double b_norm = s.b > 0 ? s.b : 1;
  // Every iteration's updated residual departs from b − A·x_k by at most the rounding of
  // one SpMV-sized row sum (Greenbaum 1997), so after k iterations, worst case summed:
  const double g = gamma_n(s.row_max + 2, info(p).u), g_ref = gamma_n(s.row_max + 2, 0x1p-64);
  const double rel = tol + ((iterations + 1) * g + g_ref) * s.mag / b_norm;
  return finish(s, rel,
                "||b-Ax||/||b|| <= tol + ((k+1) gamma_{m+2}(u) + gamma_{m+2}(u_ref)) || |b| + |A||x| || / ||b||, "
                "m the longest row, k the iterations");
}

TrueResidual refined_true_residual(const CsrMatrix& a, const std::vector<double>& b, const DwVector& x, Precision w,
                                   double tol) {
  const bool dd = w == Precision::DD;
  const auto s = dd ? sums<quad_t>(a, b, x) : sums<long double>(a, b, x);
  const double b_norm = s.b > 0 ? s.b : 1;
  // The last residual, computed in double words, was within tol; it is off the exact one
  // by the row sum's rounding: each product one accurate multiply (5u), at most m+1
  // accurate adds (a = 3u/(1 − 4u_w) each), as docs/validation.md bounds DOT; DF also
  // rounds A's and b's doubles to double words (u each).
  const double u = info(w).u, u_w = std::sqrt(u), add = 3 * u / (1 - 4 * u_w);
  const double e = (1 + 5 * u) * (1 + gamma_n(s.row_max + 1, add)) - 1 + (dd ? 0.0 : u);
  const double e_ref = gamma_n(s.row_max + 2, dd ? 0x1p-113 : 0x1p-64);
  return finish(s, tol + (e + e_ref) * s.mag / b_norm,
                "||b-Ax||/||b|| <= tol + ((1+5u)(1+gamma_{m+1}(3u/(1-4u_w))) - 1 [+ u for DF's rounded A, b] + "
                "gamma_{m+2}(u_ref)) || |b| + |A||x| || / ||b||");
}

}  // namespace hetbench
