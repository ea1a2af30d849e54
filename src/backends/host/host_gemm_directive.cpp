// The host end of the directive-based GEMM family (docs/directive-gemm.md): a serial
// triple loop and the same loop nest under `omp parallel for` + `omp simd`, so that the
// OpenMP offload and OpenACC variants on the GPU (src/backends/cuda/
// directive_gemm_variants.cpp) have their CPU counterparts. Unlike host/gemm/naive (a row
// accumulator), C itself is the accumulator: C row scaled by beta, then alpha*a_ip*b_pj
// added in the order that keeps the innermost loop at unit stride: i-p-j when B is not
// transposed, i-j-p (a dot product per element) when it is. Either way each term passes
// at most k+2 roundings, inside the op's gamma_{k+2} bound. With beta = 0 C is not read
// (BLAS's rule: the plain form leaves it unset, holding the engine's poison), the row
// starts at 0. @iter=N runs the nest N times (plain: each time the same product).
#include <omp.h>

#include <algorithm>

#include "backends/host/host_variant.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

template <class T>
void loop_nest(const HostCall& c, int threads) {
  const std::size_t m = static_cast<std::size_t>(c.size("m")), n = static_cast<std::size_t>(c.size("n")),
                    k = static_cast<std::size_t>(c.size("k"));
  // op(A)(i,p) = A[i*sai + p*sap]; with B transposed op(B)(p,j) = B[j*k + p].
  const bool ta = c.size("ta") != 0, tb = c.size("tb") != 0;
  const std::size_t sai = ta ? 1 : k, sap = ta ? m : 1;
  const T alpha = static_cast<T>(c.scalar("alpha")), beta = static_cast<T>(c.scalar("beta"));
  const T* __restrict A = c.ptr<T>("A");
  const T* __restrict B = c.ptr<T>("B");
  T* __restrict C = c.ptr<T>("C");
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (std::size_t i = 0; i < m; ++i) {
    T* __restrict ci = C + i * n;
    if (tb) {
      for (std::size_t j = 0; j < n; ++j) {
        const T* __restrict bj = B + j * k;
        T s = 0;
#pragma omp simd reduction(+ : s)
        for (std::size_t p = 0; p < k; ++p) s += A[i * sai + p * sap] * bj[p];
        ci[j] = beta != T(0) ? alpha * s + beta * ci[j] : alpha * s;
      }
      continue;
    }
    if (beta == T(0)) {
      std::fill(ci, ci + n, T(0));
    } else {
#pragma omp simd
      for (std::size_t j = 0; j < n; ++j) ci[j] *= beta;
    }
    for (std::size_t p = 0; p < k; ++p) {
      const T aip = alpha * A[i * sai + p * sap];
      const T* __restrict bp = B + p * n;
#pragma omp simd
      for (std::size_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

template <class T>
void loop_nests(const HostCall& c, int threads) {
  for (auto it = c.size_or("iter", 1); it > 0; --it) loop_nest<T>(c, threads);
}

CodeVariantInfo iterating(CodeVariantInfo info) {
  info.axes = {"iter"};
  return info;
}

const bool registered_host_gemm_directive = [] {
  register_code_variant<HostCall>(
      iterating(host_code("gemm", "serial",
                          "serial triple loop on C in place: i-p-j (i-j-p when B is transposed), unit-stride inner loop")),
      [](HostCall& c) { with_real(c.prob->prec, [&]<class T>() {
        loop_nests<T>(c, 1);
        return 0;
      }); });
  register_code_variant<HostCall>(
      iterating(host_code("gemm", "omp", "the serial loop nest under 'omp parallel for' over rows and 'omp simd' inside",
                          {threads_param()})),
      [](HostCall& c) {
        with_real(c.prob->prec, [&]<class T>() {
          loop_nests<T>(c, static_cast<int>(c.param("THREADS")));
          return 0;
        });
      });
#ifndef HETBENCH_HAVE_OFFLOAD
  // The GPU ones are left out of this build; `hetbench list` says why (the reason comes
  // from CMakeLists.txt, which knows what it did not find).
  for (const char* v : {"omp_target", "omp_target_map", "omp_target_data", "acc", "acc_copy", "acc_data"})
    missing_baselines().emplace_back(std::string("cuda/gemm/") + v, HETBENCH_OFFLOAD_MISSING);
#endif
  return true;
}();

}  // namespace
}  // namespace hetbench
