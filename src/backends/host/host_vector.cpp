// Host implementations of COPY, AXPY and DOT: a plain loop and an OpenMP version each;
// AXPY and DOT also in DF and DD (double-word arithmetic of hetbench/dfdd.hpp), in either
// storage (interleaved or two planes, the size key "soa").
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "backends/host/host_variant.hpp"
#include "ops/double_word.hpp"

namespace hetbench {

ParamDef threads_param() {
  ParamDef p{"THREADS", {}, 0, "OpenMP threads"};
  long long hw = std::max(1u, std::thread::hardware_concurrency());
  for (long long t = 1; t < hw; t *= 2) p.values.push_back(t);
  p.values.push_back(hw);
  p.def = hw;
  return p;
}

namespace {

const std::vector<Precision> kDW{Precision::DF, Precision::DD};

void copy_loop(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const T* __restrict x = c.ptr<T>("x");
    T* __restrict y = c.ptr<T>("y");
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i];
    return 0;
  });
}

void copy_omp(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const T* __restrict x = c.ptr<T>("x");
    T* __restrict y = c.ptr<T>("y");
#pragma omp parallel for simd schedule(static) num_threads(c.param("THREADS"))
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i];
    return 0;
  });
}

void axpy_loop(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const T a = static_cast<T>(c.scalar("alpha"));
    const T* __restrict x = c.ptr<T>("x");
    const T* __restrict y = c.ptr<T>("y");
    T* __restrict r = c.ptr<T>("r");
    for (std::size_t i = 0; i < n; ++i) r[i] = a * x[i] + y[i];
    return 0;
  });
}

void axpy_omp(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const T a = static_cast<T>(c.scalar("alpha"));
    const T* __restrict x = c.ptr<T>("x");
    const T* __restrict y = c.ptr<T>("y");
    T* __restrict r = c.ptr<T>("r");
#pragma omp parallel for simd schedule(static) num_threads(c.param("THREADS"))
    for (std::size_t i = 0; i < n; ++i) r[i] = a * x[i] + y[i];
    return 0;
  });
}

void dot_loop(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const T* x = c.ptr<T>("x");
    const T* y = c.ptr<T>("y");
    T s = 0;
    for (std::size_t i = 0; i < n; ++i) s += x[i] * y[i];
    *c.ptr<T>("result") = s;
    return 0;
  });
}

// Blocked summation: each thread sums contiguous blocks of BLOCK products with 8
// independent accumulators (SIMD-friendly, and the error grows with the block length
// and the number of blocks rather than with n), then the partial sums are added.
void dot_omp(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const auto block = static_cast<std::size_t>(c.param("BLOCK"));
    const T* __restrict x = c.ptr<T>("x");
    const T* __restrict y = c.ptr<T>("y");
    T total = 0;
#pragma omp parallel num_threads(c.param("THREADS")) reduction(+ : total)
    {
      T mine = 0;
#pragma omp for schedule(static)
      for (std::size_t b = 0; b < n; b += block) {
        const std::size_t e = std::min(n, b + block);
        T acc[8] = {};
        std::size_t i = b;
        for (; i + 8 <= e; i += 8)
          for (int k = 0; k < 8; ++k) acc[k] += x[i + k] * y[i + k];
        for (; i < e; ++i) acc[0] += x[i] * y[i];
        mine += ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
      }
      total += mine;
    }
    *c.ptr<T>("result") = total;
    return 0;
  });
}

// ---- double-word: the accurate multiply and add that the ops' bounds assume ----

// Calls f(x, y, r) with DwSpans of the operands named x, y and r (r: the output) in the
// problem's storage, W the word type.
template <class F>
void with_dw_operands(const HostCall& c, const char* out, F&& f) {
  with_word(c.prob->prec, [&]<class W>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const std::size_t n_out = c.prob->array(out).count;
    with_layout(soa_storage(*c.prob), [&](auto s) {
      constexpr bool soa = decltype(s)::value;
      f(DwSpan<const W, soa>{c.ptr<W>("x"), n}, DwSpan<const W, soa>{c.ptr<W>("y"), n},
        DwSpan<W, soa>{c.ptr<W>(out), n_out});
    });
    return 0;
  });
}

template <class W>
dw<W> alpha_dw(const HostCall& c) {
  return {static_cast<W>(c.scalar("alpha_hi")), static_cast<W>(c.scalar("alpha_lo"))};
}

void axpy_dw_loop(const HostCall& c) {
  with_dw_operands(c, "r", [&](auto x, auto y, auto r) {
    using W = std::remove_cvref_t<decltype(*r.p)>;
    const dw<W> a = alpha_dw<W>(c);
    for (std::size_t i = 0; i < x.n; ++i) r.set(i, add_accurate(mul_accurate(a, x[i]), y[i]));
  });
}

void axpy_dw_omp(const HostCall& c) {
  with_dw_operands(c, "r", [&](auto x, auto y, auto r) {
    using W = std::remove_cvref_t<decltype(*r.p)>;
    const dw<W> a = alpha_dw<W>(c);
#pragma omp parallel for schedule(static) num_threads(c.param("THREADS"))
    for (std::size_t i = 0; i < x.n; ++i) r.set(i, add_accurate(mul_accurate(a, x[i]), y[i]));
  });
}

// Sum of x_i·y_i over [b, e) with 4 independent accumulators (the add's dependency
// chain is long), added up in a fixed order.
template <class X>
auto dw_dot_range(const X& x, const X& y, std::size_t b, std::size_t e) {
  using D = decltype(x[0]);
  D acc[4] = {};
  std::size_t i = b;
  for (; i + 4 <= e; i += 4)
    for (int k = 0; k < 4; ++k) acc[k] = add_accurate(acc[k], mul_accurate(x[i + k], y[i + k]));
  for (; i < e; ++i) acc[0] = add_accurate(acc[0], mul_accurate(x[i], y[i]));
  return add_accurate(add_accurate(acc[0], acc[1]), add_accurate(acc[2], acc[3]));
}

void dot_dw_loop(const HostCall& c) {
  with_dw_operands(c, "result", [&](auto x, auto y, auto r) {
    using D = decltype(x[0]);
    D s{};
    for (std::size_t i = 0; i < x.n; ++i) s = add_accurate(s, mul_accurate(x[i], y[i]));
    r.set(0, s);
  });
}

// One contiguous range per thread; the per-thread sums are added in thread order.
void dot_dw_omp(const HostCall& c) {
  with_dw_operands(c, "result", [&](auto x, auto y, auto r) {
    using D = decltype(x[0]);
    const int threads = static_cast<int>(c.param("THREADS"));
    std::vector<D> part(threads, D{});
#pragma omp parallel num_threads(threads)
    {
      const std::size_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      part[t] = dw_dot_range(x, y, x.n * t / nt, x.n * (t + 1) / nt);
    }
    D s{};
    for (const auto& p : part) s = add_accurate(s, p);
    r.set(0, s);
  });
}

ParamDef block_param() { return {"BLOCK", {256, 1024, 4096, 16384, 65536}, 4096, "products per block"}; }

const bool registered_host_vector =
    add_host_code("copy", "loop", "sequential loop", {}, copy_loop) &&
    add_host_code("copy", "omp", "OpenMP parallel loop", {threads_param()}, copy_omp) &&
    add_host_code("axpy", "loop", "sequential loop", {}, axpy_loop) &&
    add_host_code("axpy", "omp", "OpenMP parallel loop", {threads_param()}, axpy_omp) &&
    add_host_code("dot", "loop", "sequential recursive summation", {}, dot_loop) &&
    add_host_code("dot", "omp", "OpenMP blocked summation, 8 accumulators per block",
                  {threads_param(), block_param()}, dot_omp) &&
    add_host_code("axpy", "dw_loop", "sequential loop, accurate double-word mul and add", {}, axpy_dw_loop, kDW) &&
    add_host_code("axpy", "dw_omp", "OpenMP parallel loop, accurate double-word mul and add", {threads_param()},
                  axpy_dw_omp, kDW) &&
    add_host_code("dot", "dw_loop", "sequential recursive double-word summation", {}, dot_dw_loop, kDW) &&
    add_host_code("dot", "dw_omp", "OpenMP: a range per thread with 4 double-word accumulators", {threads_param()},
                  dot_dw_omp, kDW);

}  // namespace
}  // namespace hetbench
