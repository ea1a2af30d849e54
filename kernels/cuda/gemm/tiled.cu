// A BM×BN tile of C per block. The k dimension is walked in BK-deep steps: the block
// copies a BM×BK tile of op(A) and a BK×BN tile of op(B) into shared memory (zeros
// outside the matrices, so any m, n, k works), then each thread accumulates TM×TN
// elements of C in registers. Thread (tx, ty) owns rows ty + r·(BM/TM) and columns
// tx + c·(BN/TN): neighbouring threads touch neighbouring columns, which keeps global
// stores and shared reads contiguous. The port of kernels/opencl/gemm/tiled.cl, with a
// one-element pad on the shared rows so that the transposing copies (TA = 0 into As,
// TB = 1 into Bs) do not hit one bank BK times.
#define LX (BN / TN)
#define LY (BM / TM)
#define NTHR (LX * LY)

extern "C" __global__ void __launch_bounds__(NTHR, 1)
    gemm_tiled(const unsigned m, const unsigned n, const unsigned k, const REAL alpha, const REAL* __restrict__ A,
               const REAL* __restrict__ B, const REAL beta, REAL* __restrict__ C) {
  __shared__ REAL As[BK][BM + 1];  // op(A) tile, transposed: As[p][i]
  __shared__ REAL Bs[BK][BN + 1];  // op(B) tile: Bs[p][j]
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const unsigned lid = ty * LX + tx;
  const unsigned i0 = blockIdx.y * BM, j0 = blockIdx.x * BN;

  REAL acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = 0;

  for (unsigned p0 = 0; p0 < k; p0 += BK) {
    // Cooperative copies; the fastest-varying index follows the stored rows, so that
    // consecutive threads read consecutive addresses in every layout.
    for (unsigned t = lid; t < BM * BK; t += NTHR) {
#if TA
      const unsigned p = t / BM, r = t % BM;
#else
      const unsigned r = t / BK, p = t % BK;
#endif
      const unsigned i = i0 + r, pp = p0 + p;
      As[p][r] = (i < m && pp < k) ? A_AT(i, pp) : (REAL)0;
    }
    for (unsigned t = lid; t < BN * BK; t += NTHR) {
#if TB
      const unsigned c = t / BK, p = t % BK;
#else
      const unsigned p = t / BN, c = t % BN;
#endif
      const unsigned j = j0 + c, pp = p0 + p;
      Bs[p][c] = (j < n && pp < k) ? B_AT(pp, j) : (REAL)0;
    }
    __syncthreads();

#pragma unroll
    for (int p = 0; p < BK; ++p) {
      REAL a[TM], b[TN];
#pragma unroll
      for (int r = 0; r < TM; ++r) a[r] = As[p][ty + r * LY];
#pragma unroll
      for (int c = 0; c < TN; ++c) b[c] = Bs[p][tx + c * LX];
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] += a[r] * b[c];
    }
    __syncthreads();  // before the next tiles overwrite As and Bs
  }

#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const unsigned i = i0 + ty + r * LY;
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      const unsigned j = j0 + tx + c * LX;
      if (i < m && j < n) C_AT(i, j) = alpha * acc[r][c] + beta * C_AT(i, j);
    }
  }
}
