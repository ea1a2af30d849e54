// Running error analysis (Wilkinson; Higham, "Accuracy and Stability of Numerical
// Algorithms", 2nd ed., §3.3) for validating a short chain of operations whose worst-case
// bound in closed form would be loose or unwieldy (SRAD's diffusion coefficient): each
// quantity carries the reference value v, computed in the reference type R, and a bound e
// on |v - exact| + |kernel's value - exact|. Every operation propagates e rigorously
// (first and second order) and adds its own rounding in both precisions, (uk + ur)·(|v| + e),
// where uk is the kernel's relative error of that operation (u; a division in S gets 5u:
// OpenCL allows 2.5 ulp for single-precision x/y) and ur the reference's u. Dropping a
// rounding, as an FMA contraction does, only makes the kernel's error smaller.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ops/vector_common.hpp"

namespace hetbench {

template <class R>
struct Running {
  R v = 0, e = 0;
};

template <class R>
struct RunningArith {
  R uk, ur, udiv;  // kernel's u, reference's u, kernel's relative error of a division
  using V = Running<R>;
  V exact(R x) const { return {x, 0}; }
  V input(R x, R err) const { return {x, err}; }
  // v is the reference's rounded result: the exact operation on the v's is within ur|v| of it.
  V round(R v, R prop, R uop) const { return {v, prop + (uop + ur) * (std::fabs(v) * (1 + ur) + prop)}; }
  V add(V a, V b) const { return round(a.v + b.v, a.e + b.e, uk); }
  V sub(V a, V b) const { return round(a.v - b.v, a.e + b.e, uk); }
  V mul(V a, V b) const {
    return round(a.v * b.v, (std::fabs(a.v) + a.e) * b.e + (std::fabs(b.v) + b.e) * a.e, uk);
  }
  // |x^/y^ - x/y| <= (e_x + |x/y| e_y) / |y^|, with |y^| >= |v_y| - e_y: needs |v_y| > e_y.
  V div(V a, V b) const {
    const R den = std::fabs(b.v) - b.e;
    if (!(den > 0)) return {a.v / b.v, std::numeric_limits<R>::infinity()};
    const R q = (std::fabs(a.v) + a.e) / den;
    return round(a.v / b.v, (a.e + q * b.e) / den, udiv);
  }
  // min and max are 1-Lipschitz: the bound passes through unchanged.
  V clamp01(V a) const { return {std::min<R>(std::max<R>(a.v, 0), 1), a.e}; }
};

// The check of K outputs per point (got[f][point]) against eval(point, Running<R>[K]): each
// output within its own e. check_each asks for an element and then its bound, so each
// thread keeps the point it evaluated last (keyed by this call too): every point's chain
// runs once. A bound that is not finite accepts only the exact value.
template <std::size_t K, class R, class T, class Eval>
Validation check_running(std::size_t n, const std::vector<std::vector<T>>& got, Eval eval) {
  static std::atomic<std::uint64_t> calls{0};
  const std::uint64_t call = ++calls;
  auto point = [&](std::size_t k) -> const Running<R>* {
    thread_local std::uint64_t key_call = 0;
    thread_local std::size_t key_k = 0;
    thread_local Running<R> cached[K];
    if (key_call != call || key_k != k) {
      eval(k, cached);
      key_call = call;
      key_k = k;
    }
    return cached;
  };
  return check_each(
      K * n,
      [&](std::size_t i) {
        const T o = got[i % K][i / K];
        if (is_poison(o)) return ElementError{ElementError::unwritten};
        if (std::isnan(o)) return ElementError{ElementError::nan};
        const long double r = point(i / K)[i % K].v;
        return ElementError{ElementError::ok, std::fabs(static_cast<long double>(o) - r), r};
      },
      [&](std::size_t i) {
        const long double e = point(i / K)[i % K].e;
        return std::isfinite(e) ? e : 0.0L;
      });
}

}  // namespace hetbench
