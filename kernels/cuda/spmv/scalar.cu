// Seed 000's global-memory SpMV: one thread per row. Neighbouring threads walk
// neighbouring rows, so loads coalesce only through L1; x goes through the read-only path.
extern "C" __global__ void __launch_bounds__(WG) spmv_scalar(const unsigned rows, const int* __restrict__ row_ptr,
                                                             const int* __restrict__ col,
                                                             const REAL* __restrict__ val,
                                                             const REAL* __restrict__ x, const REAL alpha,
                                                             const REAL beta, REAL* __restrict__ y) {
  const unsigned r = blockIdx.x * WG + threadIdx.x;
  if (r >= rows) return;
  const int end = row_ptr[r + 1];
  REAL s = 0;
#pragma unroll 4
  for (int j = row_ptr[r]; j < end; ++j) s += val[j] * __ldg(x + col[j]);
  y[r] = hb_spmv_axpby(alpha, s, beta, y + r);
}
