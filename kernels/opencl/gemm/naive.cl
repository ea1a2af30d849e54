// One element of C per work-item: x runs along the columns of C (j), y along the rows
// (i), so that neighbouring work-items read neighbouring elements of B and C (NN).
// The launch is rounded up to whole work-groups: out-of-range work-items do nothing.
kernel void gemm_naive(const uint m, const uint n, const uint k, const REAL alpha, global const REAL* restrict A,
                       global const REAL* restrict B, const REAL beta, global REAL* restrict C) {
  const uint j = get_global_id(0), i = get_global_id(1);
  if (i >= m || j >= n) return;
  REAL s = 0;
  for (uint p = 0; p < k; ++p) s += A_AT(i, p) * B_AT(p, j);
  C_AT(i, j) = alpha * s + beta * C_AT(i, j);
}
