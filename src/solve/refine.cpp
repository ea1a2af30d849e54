#include "solve/refine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "hetbench/dfdd.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

namespace {

template <class W>
class HostDwResidual final : public DwResidual {
 public:
  HostDwResidual(std::shared_ptr<const CsrMatrix> a, Precision p) : a_(std::move(a)), p_(p) {
    // DD: A's doubles are its hi words and every lo word is 0, so they are read in place
    // (a copy of a large A cost more than the residuals). DF: split once, in parallel.
    if constexpr (!kInPlace) {
      const auto nnz = static_cast<std::int64_t>(a_->values.size());
      hi_.resize(a_->values.size());
      lo_.resize(a_->values.size());
#pragma omp parallel for schedule(static)
      for (std::int64_t q = 0; q < nnz; ++q) {
        const double v = a_->values[q];
        hi_[q] = static_cast<W>(v);
        lo_[q] = static_cast<W>(v - static_cast<double>(hi_[q]));
      }
    }
  }
  Precision precision() const override { return p_; }

  void residual(const std::vector<double>& b, const DwVector& x, DwVector& r) override {
    const CsrMatrix& a = *a_;
    const auto rows = static_cast<std::int64_t>(a.rows);
    r.hi.resize(a.rows);
    r.lo.resize(a.rows);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      dw<W> acc = word(b[i]);
      for (auto q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q) {
        const auto j = a.colidx[q];
        const dw<W> xj{static_cast<W>(x.hi[j]), static_cast<W>(x.lo[j])};
        const dw<W> aq = kInPlace ? dw<W>{static_cast<W>(a.values[q]), W(0)} : dw<W>{hi_[q], lo_[q]};
        const dw<W> t = mul_accurate(aq, xj);
        acc = add_accurate(acc, dw<W>{-t.hi, -t.lo});
      }
      r.hi[i] = acc.hi;
      r.lo[i] = acc.lo;
    }
  }

  void update(DwVector& x, const std::vector<double>& d) override {
    const auto n = static_cast<std::int64_t>(d.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const dw<W> s = add_accurate(dw<W>{static_cast<W>(x.hi[i]), static_cast<W>(x.lo[i])}, word(d[i]));
      x.hi[i] = s.hi;
      x.lo[i] = s.lo;
    }
  }

 private:
  static constexpr bool kInPlace = std::is_same_v<W, double>;
  std::shared_ptr<const CsrMatrix> a_;
  Precision p_;
  std::vector<W> hi_, lo_;

  // A double as a double word: exact for DD; for DF rounded to about 48 bits.
  static dw<W> word(double v) {
    const W h = static_cast<W>(v);
    return {h, static_cast<W>(v - static_cast<double>(h))};
  }
};

// In parallel by fixed blocks whose partial sums are added in order: the same value
// whatever the thread count, and no OpenMP reduction on long double (clang lowers that
// to 16-byte atomics, which need libatomic).
double norm(const DwVector& v) {
  constexpr std::int64_t kBlock = 1 << 16;
  const auto n = static_cast<std::int64_t>(v.hi.size());
  const std::int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<long double> part(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (std::int64_t k = 0; k < blocks; ++k) {
    long double s = 0;
    for (std::int64_t i = k * kBlock; i < std::min(n, (k + 1) * kBlock); ++i) {
      const long double e = static_cast<long double>(v.hi[i]) + v.lo[i];
      s += e * e;
    }
    part[static_cast<std::size_t>(k)] = s;
  }
  long double s = 0;
  for (const long double p : part) s += p;
  return static_cast<double>(std::sqrt(s));
}

}  // namespace

std::unique_ptr<DwResidual> host_dw_residual(std::shared_ptr<const CsrMatrix> a, Precision p) {
  if (p == Precision::DF) return std::make_unique<HostDwResidual<float>>(std::move(a), p);
  if (p == Precision::DD) return std::make_unique<HostDwResidual<double>>(std::move(a), p);
  throw Error(fmt::format("--refine takes DF or DD, not {}", name(p)));
}

RefineResult refine_solve(SolverOps& ops, DwResidual& res, const std::vector<double>& b, const RefineOptions& o) {
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  RefineResult out;
  auto t = clock::now();
  const std::size_t n = b.size();
  const auto rows = static_cast<std::int64_t>(n);
  out.x = {std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  DwVector r{b, std::vector<double>(n, 0.0)};  // x₀ = 0: r₀ = b exactly
  // Host vectors of n allocated once: fresh ones each outer step cost their page faults.
  std::vector<double> rs(n);
  double r_norm = norm(r);
  const double b_norm = r_norm > 0 ? r_norm : 1;
  out.host_s += since(t);
  t = clock::now();
  auto rhs = ops.vector();
  out.transfer_s += since(t);
  double last = r_norm / b_norm;
  out.history.push_back(last);
  for (out.outer = 0;; ++out.outer) {
    if (last <= o.tol) {
      out.why = StopWhy::Converged;
      break;
    }
    if (out.outer == o.max_outer) break;
    // The correction equation in the inner precision: r scaled to norm 1 keeps S from
    // underflowing as the residual shrinks.
    const double scale = r_norm;
    t = clock::now();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) rs[static_cast<std::size_t>(i)] = (r.hi[i] + r.lo[i]) / scale;
    out.host_s += since(t);
    t = clock::now();
    ops.upload(*rhs, rs);
    auto d = ops.vector();  // zeroed on the device
    ops.finish();
    out.transfer_s += since(t);
    KrylovOptions inner = o.inner;
    if (o.inner_floor > 0) inner.tol = std::clamp(o.tol / last, o.inner_floor, 0.5);
    out.inner_tols.push_back(inner.tol);
    t = clock::now();
    const auto in = krylov_solve(ops, *rhs, *d, inner);
    ops.finish();
    out.inner_s += since(t);
    out.inner_iterations += in.iterations;
    out.inner_history.insert(out.inner_history.end(), in.history.begin(), in.history.end());
    if (in.why == StopWhy::Breakdown) {
      out.why = StopWhy::Breakdown;
      out.detail = fmt::format("inner solve {}: {}", out.outer + 1, in.detail);
      break;
    }
    t = clock::now();
    auto dv = ops.download(*d);
    out.transfer_s += since(t);
    t = clock::now();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) dv[static_cast<std::size_t>(i)] *= scale;
    out.host_s += since(t);
    t = clock::now();
    res.update(out.x, dv);
    res.residual(b, out.x, r);
    out.residual_s += since(t);
    t = clock::now();
    r_norm = norm(r);
    out.host_s += since(t);
    const double now = r_norm / b_norm;
    out.history.push_back(now);
    // Refinement converges linearly; a step that does not halve the residual will not
    // reach the tolerance (the inner precision cannot resolve the correction any more).
    if (!(now <= 0.5 * last) && now > o.tol) {
      out.why = StopWhy::MaxIter;
      out.detail = fmt::format("stagnated at outer step {}: ||r||/||b|| {:.3e} after {:.3e}", out.outer + 1, now, last);
      ++out.outer;
      break;
    }
    last = now;
  }
  return out;
}

}  // namespace hetbench
