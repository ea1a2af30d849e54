// One element of C per thread: x runs along the columns of C (j), y along the rows (i),
// so that neighbouring threads of a warp read neighbouring elements of B and C (NN) and
// share each element of A. The launch is rounded up to whole blocks: out-of-range
// threads do nothing.
extern "C" __global__ void __launch_bounds__(WX * WY, 1)
    gemm_naive(const unsigned m, const unsigned n, const unsigned k, const REAL alpha, const REAL* __restrict__ A,
               const REAL* __restrict__ B, const REAL beta, REAL* __restrict__ C) {
  const unsigned j = blockIdx.x * WX + threadIdx.x, i = blockIdx.y * WY + threadIdx.y;
  if (i >= m || j >= n) return;
  REAL s = 0;
  for (unsigned p = 0; p < k; ++p) s += A_AT(i, p) * B_AT(p, j);
  C_AT(i, j) = alpha * s + beta * C_AT(i, j);
}
