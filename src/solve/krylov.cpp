#include "solve/krylov.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench {

KrylovMethod parse_method(const std::string& s) {
  if (s == "cg") return KrylovMethod::CG;
  if (s == "bicgstab") return KrylovMethod::BiCGStab;
  if (s == "gmres") return KrylovMethod::GMRES;
  if (s == "fgmres") return KrylovMethod::FGMRES;
  if (s == "fom") return KrylovMethod::FOM;
  if (s == "iom") return KrylovMethod::IOM;
  throw Error(fmt::format("unknown --method '{}': expected cg, bicgstab, gmres, fgmres, fom or iom", s));
}

std::string to_string(KrylovMethod m) {
  constexpr const char* names[] = {"cg", "bicgstab", "gmres", "fgmres", "fom", "iom"};
  return names[static_cast<int>(m)];
}

bool restarted(KrylovMethod m) { return m != KrylovMethod::CG && m != KrylovMethod::BiCGStab; }

std::string to_string(StopWhy w) {
  constexpr const char* names[] = {"converged", "max-iter", "breakdown"};
  return names[static_cast<int>(w)];
}

namespace {

using Vec = std::unique_ptr<SolverVector>;

// The methods below update out of place (r = a·x + y into a third vector, then swap the
// handles): the kernels declare their pointers restrict, so no output aliases an input.
struct Run {
  SolverOps& ops;
  const KrylovOptions& o;
  KrylovResult res;

  // Records ||r||/||b|| and says whether it is small enough.
  bool record(double r_norm) {
    res.history.push_back(r_norm / res.b_norm);
    return r_norm <= o.tol * res.b_norm;
  }
  bool stop(StopWhy why, std::string detail = "") {
    res.why = why;
    res.detail = std::move(detail);
    return true;
  }
  // A coefficient that is not a finite number ends the solve as a breakdown.
  bool broken(double v, const char* what) {
    if (std::isfinite(v)) return false;
    return stop(StopWhy::Breakdown, fmt::format("{} is {} at iteration {}", what, v, res.iterations));
  }

  // CG with its scalars kept where the kernels run: a window of check_every iterations
  // is issued without waiting (alpha = r·z / p·Ap and beta = r·z' / r·z are formed by
  // axpy_ratio from the dot products' device results), each iteration's p·Ap, r·r and
  // r·z are logged, and a failed test freezes x and r on the device. The host then reads
  // the window's log once and replays the tests iteration by iteration, so that the
  // iteration count, the history and x are those of the version that waits every time.
  void cg(SolverVector& b, Vec& x) {
    auto r = ops.vector(), z = ops.vector(), p = ops.vector(), q = ops.vector(), t = ops.vector();
    ops.residual(b, *x, *r);
    if (record(std::sqrt(ops.dot(*r, *r)))) return void(stop(StopWhy::Converged));
    ops.precondition(*r, *z);
    ops.copy(*z, *p);
    auto pq = ops.scalar(), rr = ops.scalar(), rz = ops.scalar(), rz_new = ops.scalar();
    ops.dot_to(*r, *z, *rz);
    const long window = o.check_every;
    const double bound = o.tol * res.b_norm;
    ops.watch_start(3 * static_cast<std::size_t>(window));
    for (long first = 1; first <= o.max_iter; first += window) {
      const long last = std::min(o.max_iter, first + window - 1);
      long i = first;
      for (; i <= last && !ops.watch_stopped(); ++i) {
        const auto row = 3 * static_cast<std::size_t>(i - first);
        ops.apply(*p, *q);
        ops.dot_to(*p, *q, *pq);
        ops.watch({{pq.get(), SolverGuard::NotPositive, 0, row}});
        ops.axpy_ratio(1, *rz, *pq, *p, *x, *t);
        std::swap(x, t);
        ops.axpy_ratio(-1, *rz, *pq, *q, *r, *t);
        std::swap(r, t);
        // z before the stopping test, so that r·r and r·z are logged together.
        ops.precondition(*r, *z);
        ops.dot_to(*r, *r, *rr);
        ops.dot_to(*r, *z, *rz_new);
        ops.watch({{rr.get(), SolverGuard::SqrtAtMostBound, bound, row + 1},
                   {rz_new.get(), SolverGuard::NotPositive, 0, row + 2}});
        ops.axpy_ratio(1, *rz_new, *rz, *p, *z, *t);
        std::swap(p, t);
        std::swap(rz, rz_new);
      }
      res.issued = i - 1;
      const auto log = ops.watch_read(3 * static_cast<std::size_t>(i - first));
      for (long k = first; k < i; ++k)
        if (cg_test(&log[3 * static_cast<std::size_t>(k - first)], k)) return;
    }
    res.iterations = o.max_iter;
  }

  // Iteration k's tests on its logged p·Ap, r·r and r·M⁻¹r, in the order CG makes them.
  bool cg_test(const double* v, long k) {
    res.iterations = k;
    const double pq = v[0], rr = v[1], rz = v[2];
    if (!(pq > 0))
      return stop(StopWhy::Breakdown,
                  fmt::format("p·Ap = {:.3e} <= 0 at iteration {}: the matrix is not positive definite "
                              "(CG needs a symmetric positive definite matrix; try --method bicgstab or gmres)",
                              pq, k));
    if (broken(rr, "r·r")) return true;
    if (record(std::sqrt(rr))) return stop(StopWhy::Converged);
    if (!(rz > 0))
      return stop(StopWhy::Breakdown, fmt::format("r·M⁻¹r = {:.3e} <= 0 at iteration {}: the preconditioner "
                                                  "is not positive definite (a negative diagonal entry)",
                                                  rz, k));
    return false;
  }

  // Right-preconditioned BiCGStab (van der Vorst 1992): the residual it updates is b − A·x.
  void bicgstab(SolverVector& b, Vec& x) {
    auto r = ops.vector(), rhat = ops.vector(), p = ops.vector(), v = ops.vector(), ph = ops.vector(),
         s = ops.vector(), sh = ops.vector(), t = ops.vector(), w = ops.vector();
    ops.residual(b, *x, *r);
    if (record(std::sqrt(ops.dot(*r, *r)))) return void(stop(StopWhy::Converged));
    ops.copy(*r, *rhat);
    double rho = 1, alpha = 1, omega = 1;
    for (res.iterations = 1; res.iterations <= o.max_iter; ++res.iterations) {
      const double rho_new = ops.dot(*rhat, *r);
      if (rho_new == 0 || broken(rho_new, "rho"))
        return void(stop(StopWhy::Breakdown, res.detail.empty() ? fmt::format("rho = r̂·r = 0 at iteration {}",
                                                                               res.iterations)
                                                                : res.detail));
      if (res.iterations == 1) {
        ops.copy(*r, *p);
      } else {
        const double beta = rho_new / rho * (alpha / omega);
        ops.axpy(-omega, *v, *p, *w);        // w = p − ω·v
        ops.axpy(beta, *w, *r, *p);          // p = r + β·w
      }
      rho = rho_new;
      ops.precondition(*p, *ph);
      ops.apply(*ph, *v);
      const double rv = ops.dot(*rhat, *v);
      alpha = rho / rv;
      if (broken(alpha, "alpha = rho / r̂·v")) return;
      ops.axpy(-alpha, *v, *r, *s);
      const double ss = ops.dot(*s, *s);
      if (std::sqrt(ss) <= o.tol * res.b_norm) {
        ops.axpy(alpha, *ph, *x, *w);
        std::swap(x, w);
        record(std::sqrt(ss));
        return void(stop(StopWhy::Converged));
      }
      ops.precondition(*s, *sh);
      ops.apply(*sh, *t);
      const double tt = ops.dot(*t, *t);
      omega = ops.dot(*t, *s) / tt;
      if (broken(omega, "omega = t·s / t·t")) return;
      if (omega == 0) return void(stop(StopWhy::Breakdown, fmt::format("omega = 0 at iteration {}", res.iterations)));
      ops.axpy(alpha, *ph, *x, *w);
      ops.axpy(omega, *sh, *w, *x);
      ops.axpy(-omega, *t, *s, *r);
      const double rr = ops.dot(*r, *r);
      if (broken(rr, "r·r")) return;
      if (record(std::sqrt(rr))) return void(stop(StopWhy::Converged));
    }
    res.iterations = o.max_iter;
  }

  // The restarted Arnoldi methods, one cycle loop for all four (Saad, "Iterative Methods
  // for Sparse Linear Systems", 2nd ed., ch. 6 and 9): each cycle builds a basis V of the
  // Krylov space of A·M⁻¹ by modified Gram–Schmidt on the device, with the (m+1)×m
  // Hessenberg matrix H and its Givens rotations on the host, and ends with x += M⁻¹·V·y.
  // - GMRES(m) (Saad & Schultz 1986, right preconditioned): y minimises ||β·e₁ − H·y||,
  //   the residual norm |g_{j+1}| after the rotations.
  // - FGMRES(m) (Saad 1993, "A flexible inner-outer preconditioned GMRES algorithm"):
  //   keeps z_j = M⁻¹·v_j and ends with x += Z·y, so the preconditioner may change from one
  //   step to the next; with a fixed one its iterates are GMRES's.
  // - FOM(m) (Saad 1981, Arnoldi's method for linear systems): y solves the square H_j·y =
  //   β·e₁ (a Galerkin condition); its residual norm is h_{j+1,j}·|y_j|. After the first
  //   j−1 rotations H_j is upper triangular but for its last diagonal entry, saved before
  //   the j-th rotation: FOM's y comes from the same triangular solve with that entry.
  // - IOM(k, m) (Saad 1982, "Krylov subspace methods for solving large unsymmetric linear
  //   systems"; Algorithm 6.6 of the book): FOM with each new vector orthogonalized against
  //   the last k only (H banded); A·V_j = V_j·H_j + h_{j+1,j}·v_{j+1}·e_jᵀ still holds, so
  //   the same residual norm and solve apply.
  void arnoldi(SolverVector& b, Vec& x) {
    const KrylovMethod method = o.method;
    const bool flexible = method == KrylovMethod::FGMRES;
    const bool galerkin = method == KrylovMethod::FOM || method == KrylovMethod::IOM;
    const int m = o.restart;
    const int depth = method == KrylovMethod::IOM ? o.truncate : m;
    std::vector<Vec> V, Z;
    for (int i = 0; i <= m; ++i) V.push_back(ops.vector());
    if (flexible)
      for (int i = 0; i < m; ++i) Z.push_back(ops.vector());
    auto r = ops.vector(), z = ops.vector(), w = ops.vector(), t = ops.vector(), zero = ops.vector(),
         u = ops.vector();
    std::vector<std::vector<double>> H(m + 1, std::vector<double>(m, 0.0));
    std::vector<double> cs(m), sn(m), g(m + 1);
    ops.residual(b, *x, *r);
    double beta = std::sqrt(ops.dot(*r, *r));
    if (record(beta)) return void(stop(StopWhy::Converged));
    while (true) {
      ops.axpy(1 / beta, *r, *zero, *V[0]);
      std::fill(g.begin(), g.end(), 0.0);
      for (auto& row : H) std::fill(row.begin(), row.end(), 0.0);
      g[0] = beta;
      int j = 0;
      bool done = false;
      double last_diag = 0, last_g = 0;  // FOM's: H_j's last diagonal entry and g_j before the j-th rotation
      for (; j < m && res.iterations < o.max_iter; ++j) {
        ++res.iterations;
        SolverVector& zj = flexible ? *Z[j] : *z;
        ops.precondition(*V[j], zj);
        ops.apply(zj, *w);
        for (int i = std::max(0, j + 1 - depth); i <= j; ++i) {
          H[i][j] = ops.dot(*w, *V[i]);
          ops.axpy(-H[i][j], *V[i], *w, *t);
          std::swap(w, t);
        }
        const double h = std::sqrt(ops.dot(*w, *w));
        if (broken(h, "||w||")) return;
        H[j + 1][j] = h;
        for (int i = 0; i < j; ++i) {  // earlier rotations on the new column
          const double a = H[i][j], c = H[i + 1][j];
          H[i][j] = cs[i] * a + sn[i] * c;
          H[i + 1][j] = -sn[i] * a + cs[i] * c;
        }
        last_diag = H[j][j];
        last_g = g[j];
        const double d = std::hypot(H[j][j], H[j + 1][j]);
        cs[j] = H[j][j] / d;
        sn[j] = H[j + 1][j] / d;
        H[j][j] = d;
        H[j + 1][j] = 0;
        g[j + 1] = -sn[j] * g[j];
        g[j] = cs[j] * g[j];
        if (galerkin && last_diag == 0)
          return void(stop(StopWhy::Breakdown,
                           fmt::format("the Hessenberg matrix H_{} is singular at iteration {}: {} has no iterate "
                                       "there (GMRES has: try --method gmres)",
                                       j + 1, res.iterations, to_string(method))));
        done = record(galerkin ? std::abs(h * last_g / last_diag) : std::abs(g[j + 1]));
        // h = 0: the Krylov space is invariant and the cycle's solution exact (a lucky breakdown).
        if (done || h == 0) {
          ++j;
          break;
        }
        ops.axpy(1 / h, *w, *zero, *V[j + 1]);
      }
      if (j == 0) return;
      // y = R⁻¹ g over the rotated (upper triangular) H; FOM and IOM take the last row
      // from before its rotation. Then u = V·y (FGMRES: Z·y) and x += M⁻¹·u (FGMRES: u).
      if (galerkin) {
        H[j - 1][j - 1] = last_diag;
        g[j - 1] = last_g;
      }
      std::vector<double> y(j);
      for (int i = j - 1; i >= 0; --i) {
        double s = g[i];
        for (int k = i + 1; k < j; ++k) s -= H[i][k] * y[k];
        y[i] = s / H[i][i];
      }
      auto& basis = flexible ? Z : V;
      ops.axpy(y[0], *basis[0], *zero, *u);
      for (int i = 1; i < j; ++i) {
        ops.axpy(y[i], *basis[i], *u, *t);
        std::swap(u, t);
      }
      if (!flexible) {
        ops.precondition(*u, *z);
        std::swap(u, z);
      }
      ops.axpy(1, *u, *x, *t);
      std::swap(x, t);
      if (done) return void(stop(StopWhy::Converged));
      if (res.iterations >= o.max_iter) return;
      // The restart's residual is recomputed, so that rounding in the rotations does not
      // accumulate across cycles.
      ops.residual(b, *x, *r);
      beta = std::sqrt(ops.dot(*r, *r));
      if (broken(beta, "||r||")) return;
      if (beta <= o.tol * res.b_norm) {
        res.history.back() = beta / res.b_norm;
        return void(stop(StopWhy::Converged));
      }
    }
  }
};

}  // namespace

KrylovResult krylov_solve(SolverOps& ops, SolverVector& b, SolverVector& x_io, const KrylovOptions& o) {
  if (restarted(o.method) && o.restart < 1) throw Error(fmt::format("--restart must be at least 1, not {}", o.restart));
  if (o.method == KrylovMethod::IOM && o.truncate < 1)
    throw Error(fmt::format("--truncate must be at least 1, not {}", o.truncate));
  if (o.check_every < 1) throw Error(fmt::format("--check-every must be at least 1, not {}", o.check_every));
  if (!(o.tol > 0)) throw Error(fmt::format("--tol must be positive, not {}", o.tol));
  Run run{ops, o, {}};
  run.res.b_norm = std::sqrt(ops.dot(b, b));
  if (run.res.b_norm == 0) run.res.b_norm = 1;  // b = 0: the absolute residual
  // The methods swap vectors; the solution is copied back into the caller's x at the end.
  Vec x = ops.vector();
  ops.copy(x_io, *x);
  switch (o.method) {
    case KrylovMethod::CG: run.cg(b, x); break;
    case KrylovMethod::BiCGStab: run.bicgstab(b, x); break;
    case KrylovMethod::GMRES:
    case KrylovMethod::FGMRES:
    case KrylovMethod::FOM:
    case KrylovMethod::IOM: run.arnoldi(b, x); break;
  }
  ops.copy(*x, x_io);
  ops.finish();
  run.res.issued = std::max(run.res.issued, run.res.iterations);
  if (run.res.why == StopWhy::MaxIter && run.res.detail.empty() && !run.res.history.empty())
    run.res.detail = fmt::format("stopped at --max-iter {}: ||r||/||b|| = {:.3e} > --tol {:.1e}", o.max_iter,
                                 run.res.history.back(), o.tol);
  return run.res;
}

}  // namespace hetbench
