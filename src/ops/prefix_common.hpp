// Shared pieces of SCAN and REDUCE: the precisions S, D and I32, seeded inputs (int32
// over the whole range, so that sums wrap), and a reference built over fixed chunks, so
// that it is the same whatever the thread count.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ops/vector_common.hpp"

namespace hetbench {

// f.template operator()<T>() with T float (S), double (D) or std::int32_t (I32).
template <class F>
decltype(auto) with_sum_type(Precision p, F&& f) {
  if (p == Precision::I32) return f.template operator()<std::int32_t>();
  return with_real(p, std::forward<F>(f));
}

// The reference's type: double (S), long double (D), or uint32_t for I32, whose
// unsigned arithmetic is the wrap-around (mod 2^32) the kernels implement.
template <class T>
using sum_ref_t = std::conditional_t<std::is_same_v<T, std::int32_t>, std::uint32_t, ref_t<T>>;

// The reference's unit roundoff (0 for I32: exact).
template <class T>
double sum_ref_u() {
  if constexpr (std::is_same_v<T, std::int32_t>) return 0;
  else return ref_u<T>();
}

// x of n elements: S and D as every vector op (±[1/16, 1], random signs); I32 the low
// 32 bits of the same generator's stream, so values span the whole int32 range, about
// half negative, and every sum of a few of them wraps. Never zero.
template <class T>
ArrayOperand sum_input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, std::int32_t>) {
    ArrayOperand a{"x", false, Access::In, n, sizeof(T), {}};  // the precision's type (I32: int32)
    a.host.resize(n * sizeof(T));
    auto* x = reinterpret_cast<std::int32_t*>(a.host.data());
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::size_t i = 0; i < n; ++i) {
      const auto r = static_cast<std::uint32_t>(splitmix64(seed ^ splitmix64(0x5CA9ull * 0x632BE59BD9B4E019ull + i)));
      x[i] = static_cast<std::int32_t>(r == 0 ? 1u : r);
    }
    return a;
  } else {
    return random_array<T>("x", n, seed, 1);
  }
}

template <class R>
R abs_of(R v) {
  if constexpr (std::is_unsigned_v<R>) return 0;
  else return v < 0 ? -v : v;
}

// Reference chunk length: fixed, so that the reference does not depend on the threads.
constexpr std::size_t kSumChunk = 65536;

struct Identity {
  template <class V>
  V operator()(V v) const { return v; }
};

// Sum and Σ|·| of f(x_j) over each chunk of kSumChunk elements of x, in R, in parallel.
template <class T, class R = sum_ref_t<T>, class F = Identity>
void chunk_sums(const T* x, std::size_t n, std::vector<R>& sum, std::vector<R>& abs, F f = {}) {
  const std::size_t chunks = (n + kSumChunk - 1) / kSumChunk;
  sum.assign(chunks, R(0));
  abs.assign(chunks, R(0));
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (std::size_t c = 0; c < chunks; ++c) {
    R s = 0, a = 0;
    for (std::size_t i = c * kSumChunk; i < std::min(n, (c + 1) * kSumChunk); ++i) {
      const R v = f(static_cast<R>(x[i]));
      s += v;
      a += abs_of(v);
    }
    sum[c] = s;
    abs[c] = a;
  }
}

// An output element against its reference: poisoned (0xFF bytes) and the reference is
// not that bit pattern (an int32 sum may be -1), NaN, or its error.
template <class T, class R>
ElementError sum_element(T o, R ref) {
  if (is_poison(o) && !is_poison(static_cast<T>(ref))) return ElementError{ElementError::unwritten};
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(o)) return ElementError{ElementError::nan};
    const long double r = ref;
    return ElementError{ElementError::ok, std::fabs(static_cast<long double>(o) - r), r};
  } else {
    const auto r = static_cast<std::int32_t>(ref);
    return ElementError{ElementError::ok, std::fabs(static_cast<long double>(o) - r), static_cast<long double>(r)};
  }
}

// The checks of consecutive parts as one.
inline Validation merge_validations(const std::vector<Validation>& parts) {
  Validation v;
  for (const auto& p : parts) {
    v.max_ratio = std::max(v.max_ratio, p.max_ratio);
    v.max_abs_err = std::max(v.max_abs_err, p.max_abs_err);
    v.max_rel_err = std::max(v.max_rel_err, p.max_rel_err);
    v.checked += p.checked;
    v.nan += p.nan;
    v.unwritten += p.unwritten;
    v.over_bound += p.over_bound;
  }
  return v;
}

}  // namespace hetbench
