// host/peak/omp: the host's FMA ceiling. Each thread takes blocks of EPT consecutive
// elements and advances their EPT independent chains together, one step at a time, so
// the inner loop is EPT independent multiply-adds: SIMD across the block and, with EPT
// a multiple of (FMA latency x FMA pipes x SIMD lanes), enough work in flight to keep
// the pipes full. The build targets baseline x86-64 (no FMA instructions), so the chain
// loop is compiled three times, for AVX-512, AVX2+FMA and baseline, and picked at run
// time from the CPU; only the FMA versions use a fused multiply-add.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "backends/host/host_variant.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

// One block of W chains of `iters` steps. Fused: std::fma (inlined as one instruction in
// the FMA targets); otherwise multiply then add, which the op's bound covers too.
template <class T, int W, bool Fused>
[[gnu::always_inline]] inline void chains(const T* __restrict a, T* __restrict out, T b, T c, int iters) {
  T x[W];
#pragma omp simd
  for (int j = 0; j < W; ++j) x[j] = a[j];
  for (int k = 0; k < iters; ++k) {
#pragma omp simd
    for (int j = 0; j < W; ++j) {
      if constexpr (Fused) x[j] = std::fma(x[j], b, c);
      else x[j] = x[j] * b + c;
    }
  }
#pragma omp simd
  for (int j = 0; j < W; ++j) out[j] = x[j];
}

// The tail (fewer than W elements left): one chain at a time.
template <class T, bool Fused>
[[gnu::always_inline]] inline void tail(const T* a, T* out, std::size_t m, T b, T c, int iters) {
  for (std::size_t j = 0; j < m; ++j) {
    T x = a[j];
    for (int k = 0; k < iters; ++k) {
      if constexpr (Fused) x = std::fma(x, b, c);
      else x = x * b + c;
    }
    out[j] = x;
  }
}

// Blocks [b0, b1) and, when `last`, the tail. Serial: OpenMP outlines a parallel region
// before inlining, so the region lives in peak_omp and each thread calls a clone.
template <class T, int W, bool Fused>
[[gnu::always_inline]] inline void peak_range(const T* a, T* out, std::size_t n, std::size_t b0, std::size_t b1,
                                              bool last, T b, T c, int iters) {
  for (std::size_t blk = b0; blk < b1; ++blk) chains<T, W, Fused>(a + blk * W, out + blk * W, b, c, iters);
  if (last) tail<T, Fused>(a + b1 * W, out + b1 * W, n - b1 * W, b, c, iters);
}

#define HB_PEAK_TARGET(NAME, ATTR, FUSED)                                                                   \
  template <class T, int W>                                                                                 \
  ATTR void NAME(const T* a, T* out, std::size_t n, std::size_t b0, std::size_t b1, bool last, T b, T c, \
                 int iters) {                                                                               \
    peak_range<T, W, FUSED>(a, out, n, b0, b1, last, b, c, iters);                                          \
  }
HB_PEAK_TARGET(peak_avx512, [[gnu::target("avx512f,fma")]], true)
HB_PEAK_TARGET(peak_avx2, [[gnu::target("avx2,fma")]], true)
HB_PEAK_TARGET(peak_base, , false)
#undef HB_PEAK_TARGET

int host_isa() {
  static const int isa = __builtin_cpu_supports("avx512f")                                   ? 2
                         : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1
                                                                                             : 0;
  return isa;
}

template <class T, int W>
void peak_parallel(const T* a, T* out, std::size_t n, T b, T c, int iters, int threads) {
  auto* fn = host_isa() == 2 ? &peak_avx512<T, W> : host_isa() == 1 ? &peak_avx2<T, W> : &peak_base<T, W>;
  const std::size_t blocks = n / W;
#pragma omp parallel num_threads(threads)
  {
    // Static contiguous share of the blocks; the last thread also takes the tail.
    const auto t = static_cast<std::size_t>(omp_get_thread_num()), nt = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t b0 = blocks * t / nt, b1 = blocks * (t + 1) / nt;
    fn(a, out, n, b0, b1, t + 1 == nt, b, c, iters);
  }
}

void peak_omp(const HostCall& call) {
  with_real(call.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(call.size("n"));
    const T b = static_cast<T>(call.scalar("b")), c = static_cast<T>(call.scalar("c"));
    const int iters = static_cast<int>(call.scalar("iters"));
    const int threads = static_cast<int>(call.param("THREADS"));
    const T* a = call.ptr<T>("a");
    T* out = call.ptr<T>("out");
    switch (call.param("EPT")) {
      case 8: peak_parallel<T, 8>(a, out, n, b, c, iters, threads); break;
      case 16: peak_parallel<T, 16>(a, out, n, b, c, iters, threads); break;
      case 32: peak_parallel<T, 32>(a, out, n, b, c, iters, threads); break;
      case 64: peak_parallel<T, 64>(a, out, n, b, c, iters, threads); break;
      case 128: peak_parallel<T, 128>(a, out, n, b, c, iters, threads); break;
      default: throw PointError("host/peak/omp: EPT must be 8, 16, 32, 64 or 128");
    }
    return 0;
  });
}

const bool registered_host_peak = [] {
  ParamDef ept{"EPT", {8, 16, 32, 64, 128}, 64, "chains advanced together by one thread (independent FMAs per step)"};
  register_code_variant<HostCall>(
      host_code("peak", "omp",
                "OpenMP, EPT interleaved chains per thread; AVX-512/AVX2 FMA or baseline mul+add picked at run time",
                {threads_param(), ept}),
      peak_omp);
  return true;
}();

}  // namespace
}  // namespace hetbench
