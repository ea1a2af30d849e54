// Host GEMM variants: a naive OpenMP loop nest and the OpenBLAS baseline.
// Storage is row-major: A is m×k (k×m when ta), B is k×n (n×k when tb), C is m×n.
#include <omp.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "backends/host/host_variant.hpp"
#include "ops/vector_common.hpp"

#ifdef HETBENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace hetbench {

namespace {

struct Dims {
  std::size_t m, n, k;
  bool ta, tb;
};

Dims dims(const HostCall& c) {
  return {static_cast<std::size_t>(c.size("m")), static_cast<std::size_t>(c.size("n")),
          static_cast<std::size_t>(c.size("k")), c.size("ta") != 0, c.size("tb") != 0};
}

// Rows in parallel. With B not transposed the loop order is i-p-j (a row of B streams
// through a row accumulator, unit stride); with B transposed a column of op(B) is a row
// of the stored B, so i-j-p (a dot product per element) is the unit-stride order.
// Either way each element is α·(sum of its k products) + β·c, as the bound assumes.
void gemm_naive(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    // Plain locals, not a structured binding: OpenMP regions cannot always capture those.
    const Dims d = dims(c);
    const std::size_t m = d.m, n = d.n, k = d.k;
    const bool ta = d.ta, tb = d.tb;
    const T alpha = static_cast<T>(c.scalar("alpha")), beta = static_cast<T>(c.scalar("beta"));
    const T* __restrict A = c.ptr<T>("A");
    const T* __restrict B = c.ptr<T>("B");
    T* __restrict C = c.ptr<T>("C");
#pragma omp parallel num_threads(c.param("THREADS"))
    {
      std::vector<T> acc(tb ? 0 : n);
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < m; ++i) {
        T* __restrict ci = C + i * n;
        if (!tb) {
          std::fill(acc.begin(), acc.end(), T(0));
          T* __restrict s = acc.data();
          for (std::size_t p = 0; p < k; ++p) {
            const T aip = A[ta ? p * m + i : i * k + p];
            const T* __restrict bp = B + p * n;
#pragma omp simd
            for (std::size_t j = 0; j < n; ++j) s[j] += aip * bp[j];
          }
          for (std::size_t j = 0; j < n; ++j) ci[j] = beta != T(0) ? alpha * s[j] + beta * ci[j] : alpha * s[j];
        } else {
          for (std::size_t j = 0; j < n; ++j) {
            const T* __restrict bj = B + j * k;
            T s = 0;
            if (ta)
              for (std::size_t p = 0; p < k; ++p) s += A[p * m + i] * bj[p];
            else
              for (std::size_t p = 0; p < k; ++p) s += A[i * k + p] * bj[p];
            ci[j] = beta != T(0) ? alpha * s + beta * ci[j] : alpha * s;
          }
        }
      }
    }
    return 0;
  });
}

#ifdef HETBENCH_HAVE_OPENBLAS

// Row-major cblas call: the leading dimension is the stored row length.
void gemm_openblas(const HostCall& c) {
  const auto [m, n, k, ta, tb] = dims(c);
  if (std::max({m, n, k}) > static_cast<std::size_t>(INT_MAX))
    throw PointError("OpenBLAS (LP64) takes int dimensions: m, n and k must be below 2^31");
  const auto M = static_cast<blasint>(m), N = static_cast<blasint>(n), K = static_cast<blasint>(k);
  const auto tA = ta ? CblasTrans : CblasNoTrans, tB = tb ? CblasTrans : CblasNoTrans;
  const blasint lda = ta ? M : K, ldb = tb ? K : N;
  if (c.prob->prec == Precision::S)
    cblas_sgemm(CblasRowMajor, tA, tB, M, N, K, static_cast<float>(c.scalar("alpha")), c.ptr<float>("A"), lda,
                c.ptr<float>("B"), ldb, static_cast<float>(c.scalar("beta")), c.ptr<float>("C"), N);
  else
    cblas_dgemm(CblasRowMajor, tA, tB, M, N, K, c.scalar("alpha"), c.ptr<double>("A"), lda, c.ptr<double>("B"),
                ldb, c.scalar("beta"), c.ptr<double>("C"), N);
}

#endif

const bool registered_host_gemm = [] {
  register_code_variant<HostCall>(
      host_code("gemm", "naive",
                "OpenMP over rows; i-k-j order (i-j-k when B is transposed) for unit-stride inner loops",
                {threads_param()}),
      gemm_naive);
#ifdef HETBENCH_HAVE_OPENBLAS
  register_code_variant<HostCall>(
      {.op = "gemm", .name = "openblas", .description = "OpenBLAS cblas_sgemm / cblas_dgemm (row-major)",
       .library = "OpenBLAS"},
      gemm_openblas);
#else
  missing_baselines().emplace_back("host/gemm/openblas", "OpenBLAS was not found at build time (install libopenblas-dev)");
#endif
  return true;
}();

}  // namespace
}  // namespace hetbench
