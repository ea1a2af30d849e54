#include "solve/refine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "hetbench/dfdd.hpp"
#include "hetbench/error.hpp"
#include "solve/device_dw_residual.hpp"

namespace hetbench {

namespace {

// In parallel by fixed blocks whose partial sums are added in order: the same value
// whatever the thread count, and no OpenMP reduction on long double (clang lowers that
// to 16-byte atomics, which need libatomic).
double dw_norm(const DwVector& v) {
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

template <class W>
class HostDwResidual final : public DwResidual {
 public:
  HostDwResidual(std::shared_ptr<const CsrMatrix> a, Precision p, SolverOps& ops, const std::vector<double>& b)
      : a_(std::move(a)), p_(p), ops_(ops), b_(b), x_{std::vector<double>(b.size(), 0.0), std::vector<double>(b.size(), 0.0)},
        r_{std::vector<double>(b.size()), std::vector<double>(b.size())}, rs_(b.size()) {
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
  const char* where() const override { return "host"; }

  double residual() override {
    const CsrMatrix& a = *a_;
    const auto rows = static_cast<std::int64_t>(a.rows);
    const bool zero = !updated_;  // x = 0: r = b as words, without the products
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      dw<W> acc = word(b_[i]);
      for (auto q = a.rowptr[i]; !zero && q < a.rowptr[i + 1]; ++q) {
        const auto j = a.colidx[q];
        const dw<W> xj{static_cast<W>(x_.hi[j]), static_cast<W>(x_.lo[j])};
        const dw<W> aq = kInPlace ? dw<W>{static_cast<W>(a.values[q]), W(0)} : dw<W>{hi_[q], lo_[q]};
        const dw<W> t = mul_accurate(aq, xj);
        acc = add_accurate(acc, dw<W>{-t.hi, -t.lo});
      }
      r_.hi[i] = acc.hi;
      r_.lo[i] = acc.lo;
    }
    return dw_norm(r_);
  }

  void right_hand_side(double scale, SolverVector& rhs) override {
    const auto n = static_cast<std::int64_t>(rs_.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) rs_[i] = (r_.hi[i] + r_.lo[i]) / scale;
    ops_.upload(rhs, rs_);
  }

  void update(SolverVector& d, double scale) override {
    const auto dv = ops_.download(d);
    const auto n = static_cast<std::int64_t>(dv.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const dw<W> s = add_accurate(dw<W>{static_cast<W>(x_.hi[i]), static_cast<W>(x_.lo[i])}, word(dv[i] * scale));
      x_.hi[i] = s.hi;
      x_.lo[i] = s.lo;
    }
    updated_ = true;
  }

  DwVector solution() override { return std::move(x_); }  // once, at the end

 private:
  static constexpr bool kInPlace = std::is_same_v<W, double>;
  std::shared_ptr<const CsrMatrix> a_;
  Precision p_;
  SolverOps& ops_;
  const std::vector<double>& b_;
  // Allocated once: fresh host vectors of n each step cost their page faults.
  DwVector x_, r_;
  std::vector<double> rs_;
  std::vector<W> hi_, lo_;
  bool updated_ = false;

  // A double as a double word: exact for DD; for DF rounded to about 48 bits.
  static dw<W> word(double v) {
    const W h = static_cast<W>(v);
    return {h, static_cast<W>(v - static_cast<double>(h))};
  }
};

}  // namespace

std::unique_ptr<DwResidual> host_dw_residual(std::shared_ptr<const CsrMatrix> a, Precision p, SolverOps& ops,
                                             const std::vector<double>& b) {
  if (p == Precision::DF) return std::make_unique<HostDwResidual<float>>(std::move(a), p, ops, b);
  if (p == Precision::DD) return std::make_unique<HostDwResidual<double>>(std::move(a), p, ops, b);
  throw Error(fmt::format("--refine takes DF or DD, not {}", name(p)));
}

std::unique_ptr<DwResidual> make_dw_residual(std::shared_ptr<const CsrMatrix> a, Precision p, SolverOps& ops,
                                             const std::vector<double>& b) {
  if (p != Precision::DF && p != Precision::DD) throw Error(fmt::format("--refine takes DF or DD, not {}", name(p)));
  if (Device* dev = ops.device(); dev && dev->info().fp64) return device_dw_residual(*dev, std::move(a), p, ops, b);
  return host_dw_residual(std::move(a), p, ops, b);
}

RefineResult refine_solve(SolverOps& ops, DwResidual& res, const RefineOptions& o) {
  using clock = std::chrono::steady_clock;
  // Each phase waits for its kernels, so that its time is its own.
  auto since = [&](clock::time_point t) {
    ops.finish();
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  RefineResult out;
  auto t = clock::now();
  double r_norm = res.residual();  // x₀ = 0: r₀ = b
  const double b_norm = r_norm > 0 ? r_norm : 1;
  out.residual_s += since(t);
  auto rhs = ops.vector();
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
    res.right_hand_side(scale, *rhs);
    auto d = ops.vector();  // zeroed on the device
    out.rhs_s += since(t);
    KrylovOptions inner = o.inner;
    if (o.inner_floor > 0) inner.tol = std::clamp(o.tol / last, o.inner_floor, 0.5);
    out.inner_tols.push_back(inner.tol);
    t = clock::now();
    const auto in = krylov_solve(ops, *rhs, *d, inner);
    out.inner_s += since(t);
    out.inner_iterations += in.iterations;
    out.inner_history.insert(out.inner_history.end(), in.history.begin(), in.history.end());
    if (in.why == StopWhy::Breakdown) {
      out.why = StopWhy::Breakdown;
      out.detail = fmt::format("inner solve {}: {}", out.outer + 1, in.detail);
      break;
    }
    t = clock::now();
    res.update(*d, scale);
    out.update_s += since(t);
    t = clock::now();
    r_norm = res.residual();
    out.residual_s += since(t);
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
