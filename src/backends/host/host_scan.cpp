// Host SCAN and REDUCE: the standard library's algorithms and OpenMP versions, in S, D
// and I32. I32 is added as uint32_t: the wrap-around the op specifies, without signed
// overflow's undefined behaviour.
#include <omp.h>

#include <cstdint>
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

void scan_std(const HostCall& c) {
  const auto n = static_cast<std::size_t>(c.size("n"));
  with_arith(c, "y", [&]<class A>(const A* x, A* y) {
    if (exclusive(c)) std::exclusive_scan(x, x + n, y, A(0));
    else std::inclusive_scan(x, x + n, y);
  });
}

// Two passes over one contiguous range per thread: the range sums, their exclusive
// prefix (sequential, one per thread), then each range scanned from its offset.
void scan_omp(const HostCall& c) {
  const auto n = static_cast<std::size_t>(c.size("n"));
  const bool excl = exclusive(c);
  with_arith(c, "y", [&]<class A>(const A* __restrict x, A* __restrict y) {
    const int threads = static_cast<int>(c.param("THREADS"));
    std::vector<A> offset(threads + 1, A(0));
#pragma omp parallel num_threads(threads)
    {
      const std::size_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      const std::size_t b = n * t / nt, e = n * (t + 1) / nt;
      A s = 0;
#pragma omp simd reduction(+ : s)
      for (std::size_t i = b; i < e; ++i) s += x[i];
      offset[t + 1] = s;
#pragma omp barrier
#pragma omp single
      for (std::size_t k = 1; k <= nt; ++k) offset[k] += offset[k - 1];
      A run = offset[t];
      if (excl)
        for (std::size_t i = b; i < e; ++i) {
          const A v = x[i];
          y[i] = run;
          run += v;
        }
      else
        for (std::size_t i = b; i < e; ++i) y[i] = run += x[i];
    }
  });
}

void reduce_std(const HostCall& c) {
  const auto n = static_cast<std::size_t>(c.size("n"));
  with_arith(c, "result", [&]<class A>(const A* x, A* r) { *r = std::reduce(x, x + n, A(0)); });
}

void reduce_omp(const HostCall& c) {
  const auto n = static_cast<std::size_t>(c.size("n"));
  with_arith(c, "result", [&]<class A>(const A* __restrict x, A* r) {
    A s = 0;
#pragma omp parallel for simd schedule(static) num_threads(c.param("THREADS")) reduction(+ : s)
    for (std::size_t i = 0; i < n; ++i) s += x[i];
    *r = s;
  });
}

const bool registered_host_scan =
    add_host_code("scan", "std", "std::inclusive_scan / std::exclusive_scan, sequential", {}, scan_std, kSDI) &&
    add_host_code("scan", "omp", "OpenMP two-pass: range sums, their prefix, then each range scanned from its offset",
                  {threads_param()}, scan_omp, kSDI) &&
    add_host_code("reduce", "std", "std::reduce, sequential", {}, reduce_std, kSDI) &&
    add_host_code("reduce", "omp", "OpenMP parallel for simd reduction", {threads_param()}, reduce_omp, kSDI);

}  // namespace
}  // namespace hetbench
