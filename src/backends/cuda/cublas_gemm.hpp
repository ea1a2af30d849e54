// What the cuBLAS GEMM variants share: the status check, and the row-major GEMM as
// column-major cuBLAS sees it (cuda_library.cpp's Sgemm/Dgemm, ozaki_variants.cpp's
// emulation baseline through cublasGemmEx).
#pragma once

#include <cublas_v2.h>

#include <fmt/format.h>

#include "backends/cuda/cuda_call.hpp"
#include "backends/cuda/cuda_dl.hpp"

namespace hetbench {

inline void blas_check(cublasStatus_t st, const char* call, const CudaDevice& d) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw PointError(fmt::format("{}: {} failed with {}{}", d.id(), call, HB_DL(cublasGetStatusName)(st),
                                 st == CUBLAS_STATUS_ALLOC_FAILED ? ": the device is out of memory" : ""));
}

// Row-major C = alpha op(A) op(B) + beta C through column-major cuBLAS: the row-major
// C (m x n) is the column-major C^T, and C^T = alpha op(B)^T op(A)^T + beta C^T, so the
// operands swap places. A stored row-major m x k reads as a column-major k x m (ld k);
// stored transposed (k x m) as a column-major m x k (ld m); B likewise. Call as
// gemm(h, g.opb, g.opa, g.n, g.m, g.k, alpha, B, g.ldb, A, g.lda, beta, C, g.ldc).
struct RowMajorGemm {
  int m, n, k;
  cublasOperation_t opa, opb;
  int lda, ldb, ldc;
};
inline RowMajorGemm row_major_gemm(const CudaCall& c) {
  const int m = c.int_size("m"), n = c.int_size("n"), k = c.int_size("k");
  const bool ta = c.size("ta") != 0, tb = c.size("tb") != 0;
  return {m, n, k, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? m : k, tb ? k : n, n};
}

}  // namespace hetbench
