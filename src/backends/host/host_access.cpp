// Host implementations of the memory-access ops: copy_strided and gather (a loop and an
// OpenMP version each) and pchase (one thread: a chase cannot be shared).
#include <omp.h>

#include <cstdint>

#include "backends/host/host_variant.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

// Runs range(lo, hi) over [0, n) on `threads` threads (1: inline).
void split(int threads, const auto& range, std::size_t n) {
  if (threads <= 1) return range(0, n);
#pragma omp parallel num_threads(threads)
  {
    const std::size_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    range(n * t / nt, n * (t + 1) / nt);
  }
}

void strided(const HostCall& c, int threads) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const auto off = static_cast<std::size_t>(c.size("offset")), str = static_cast<std::size_t>(c.size("stride"));
    const T* __restrict x = c.ptr<T>("x") + off;
    T* __restrict y = c.ptr<T>("y");
    split(threads, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) y[i] = x[i * str];
    }, n);
    return 0;
  });
}

void gather(const HostCall& c, int threads) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const bool scatter = c.size_or("scatter", 0) != 0;
    const T* __restrict x = c.ptr<T>("x");
    const auto* __restrict idx = c.ptr<std::uint32_t>("idx");
    T* __restrict y = c.ptr<T>("y");
    split(threads, [&](std::size_t lo, std::size_t hi) {
      if (scatter)
        for (std::size_t i = lo; i < hi; ++i) y[idx[i]] = x[i];
      else
        for (std::size_t i = lo; i < hi; ++i) y[i] = x[idx[i]];
    }, n);
    return 0;
  });
}

void pchase_loop(const HostCall& c) {
  const auto loads = static_cast<std::size_t>(c.size("loads"));
  const auto* next = c.ptr<std::uint32_t>("next");
  std::uint32_t p = 0, sum = 0;
  for (std::size_t k = 0; k < loads; ++k) {
    p = next[p];
    sum += p;
  }
  auto* out = c.ptr<std::uint32_t>("out");
  out[0] = p;
  out[1] = sum;
}

void reg(const char* op, const char* name, const char* desc, std::vector<ParamDef> params, CodeVariant<HostCall>::Fn fn,
         std::vector<Precision> precs = {Precision::S, Precision::D}) {
  register_code_variant<HostCall>(host_code(op, name, desc, std::move(params), std::move(precs)), std::move(fn));
}

const bool registered_host_access = [] {
  reg("copy_strided", "loop", "sequential loop", {}, [](const HostCall& c) { strided(c, 1); });
  reg("copy_strided", "omp", "OpenMP: a contiguous range of i per thread", {threads_param()},
      [](const HostCall& c) { strided(c, static_cast<int>(c.param("THREADS"))); });
  reg("gather", "loop", "sequential loop", {}, [](const HostCall& c) { gather(c, 1); });
  reg("gather", "omp", "OpenMP: a contiguous range of i per thread", {threads_param()},
      [](const HostCall& c) { gather(c, static_cast<int>(c.param("THREADS"))); });
  reg("pchase", "loop", "one thread follows p = next[p]", {}, pchase_loop, {Precision::S});
  return true;
}();

}  // namespace
}  // namespace hetbench
