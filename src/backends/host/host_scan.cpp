// Host SCAN and REDUCE: the standard library's algorithms and OpenMP versions, in S, D
// and I32. I32 is added as uint32_t: the wrap-around the op specifies, without signed
// overflow's undefined behaviour.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>

#include "backends/host/host_variant.hpp"
#include "ops/prefix_common.hpp"

namespace hetbench {

namespace {

const std::vector<Precision> kSDI{Precision::S, Precision::D, Precision::I32};

// Calls f(x, y) with the operands as the arithmetic type A (uint32_t for I32).
template <class F>
void with_arith(const HostCall& c, const char* out, F&& f) {
  with_sum_type(c.prob->prec, [&]<class T>() {
    using A = std::conditional_t<std::is_integral_v<T>, std::uint32_t, T>;
    f(c.ptr<A>("x"), c.ptr<A>(out));
    return 0;
  });
}

bool exclusive(const HostCall& c) { return c.size("exclusive") != 0; }
// The transformed input of @square (ops/scan.cpp): each term is x_j².
bool squares(const HostCall& c) { return c.size_or("square", 0) != 0; }

template <class A>
A square(A v) {
  return v * v;
}

void scan_std(const HostCall& c) {
  const auto n = static_cast<std::size_t>(c.size("n"));
  with_arith(c, "y", [&]<class A>(const A* x, A* y) {
    if (squares(c)) {
      if (exclusive(c)) std::transform_exclusive_scan(x, x + n, y, A(0), std::plus<>(), square<A>);
      else std::transform_inclusive_scan(x, x + n, y, std::plus<>(), square<A>);
    } else if (exclusive(c)) {
      std::exclusive_scan(x, x + n, y, A(0));
    } else {
      std::inclusive_scan(x, x + n, y);
    }
  });
}

// Two passes over one contiguous range per thread: the range sums, their exclusive
// prefix (sequential, one per thread), then each range scanned from its offset.
void scan_omp(const HostCall& c) {
  const auto n = static_cast<std::size_t>(c.size("n"));
  const bool excl = exclusive(c), sq = squares(c);
  with_arith(c, "y", [&]<class A>(const A* __restrict x, A* __restrict y) {
    const int threads = static_cast<int>(c.param("THREADS"));
    std::vector<A> offset(threads + 1, A(0));
#pragma omp parallel num_threads(threads)
    {
      const std::size_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      const std::size_t b = n * t / nt, e = n * (t + 1) / nt;
      A s = 0;
      if (sq) {
#pragma omp simd reduction(+ : s)
        for (std::size_t i = b; i < e; ++i) s += x[i] * x[i];
      } else {
#pragma omp simd reduction(+ : s)
        for (std::size_t i = b; i < e; ++i) s += x[i];
      }
      offset[t + 1] = s;
#pragma omp barrier
#pragma omp single
      for (std::size_t k = 1; k <= nt; ++k) offset[k] += offset[k - 1];
      A run = offset[t];
      for (std::size_t i = b; i < e; ++i) {
        const A v = sq ? x[i] * x[i] : x[i];
        if (excl) {
          y[i] = run;
          run += v;
        } else {
          y[i] = run += v;
        }
      }
    }
  });
}

// reduce's kind (ops/reduce.cpp): 0 sum (also when not named), 1 sum of squares, 2 its
// square root, 3 max.
int reduce_kind(const HostCall& c) { return static_cast<int>(c.size_or("kind", 0)); }

// The maximum compares I32 as int32 (T), the sums wrap as uint32 (A).
template <class F>
void with_reduce_types(const HostCall& c, F&& f) {
  with_sum_type(c.prob->prec, [&]<class U>() {
    using A = std::conditional_t<std::is_integral_v<U>, std::uint32_t, U>;
    f.template operator()<U, A>(c.ptr<U>("x"), c.ptr<A>("result"));
    return 0;
  });
}

template <class A>
A finish(int kind, A s) {
  if constexpr (std::is_floating_point_v<A>)
    if (kind == 2) return std::sqrt(s);
  return s;
}

void reduce_std(const HostCall& c) {
  const auto n = static_cast<std::size_t>(c.size("n"));
  const int kind = reduce_kind(c);
  with_reduce_types(c, [&]<class T, class A>(const T* x, A* r) {
    const A* xa = reinterpret_cast<const A*>(x);
    if (kind == 3) *r = static_cast<A>(*std::max_element(x, x + n));
    else if (kind == 0) *r = std::reduce(xa, xa + n, A(0));
    else *r = finish(kind, std::transform_reduce(xa, xa + n, A(0), std::plus<>(), square<A>));
  });
}

void reduce_omp(const HostCall& c) {
  const auto n = static_cast<std::size_t>(c.size("n"));
  const int kind = reduce_kind(c), threads = static_cast<int>(c.param("THREADS"));
  with_reduce_types(c, [&]<class T, class A>(const T* __restrict x, A* r) {
    const A* __restrict xa = reinterpret_cast<const A*>(x);
    if (kind == 3) {
      T m = x[0];
#pragma omp parallel for simd schedule(static) num_threads(threads) reduction(max : m)
      for (std::size_t i = 0; i < n; ++i) m = std::max(m, x[i]);
      *r = static_cast<A>(m);
      return;
    }
    A s = 0;
    if (kind == 0) {
#pragma omp parallel for simd schedule(static) num_threads(threads) reduction(+ : s)
      for (std::size_t i = 0; i < n; ++i) s += xa[i];
    } else {
#pragma omp parallel for simd schedule(static) num_threads(threads) reduction(+ : s)
      for (std::size_t i = 0; i < n; ++i) s += xa[i] * xa[i];
    }
    *r = finish(kind, s);
  });
}

const bool registered_host_scan =
    add_host_code("scan", "std", "std::inclusive_scan / std::exclusive_scan, sequential", {}, scan_std, kSDI) &&
    add_host_code("scan", "omp", "OpenMP two-pass: range sums, their prefix, then each range scanned from its offset",
                  {threads_param()}, scan_omp, kSDI) &&
    add_host_code("reduce", "std", "std::reduce (std::transform_reduce for squares, std::max_element), sequential", {},
                  reduce_std, kSDI) &&
    add_host_code("reduce", "omp", "OpenMP parallel for simd reduction (+ or max)", {threads_param()}, reduce_omp,
                  kSDI);

}  // namespace
}  // namespace hetbench
