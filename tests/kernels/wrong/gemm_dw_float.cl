// Deliberately wrong: DF/DD GEMM in plain word arithmetic on the hi words, lo = 0
// (double-word storage, single-word accuracy). Interleaved storage only.
kernel void gemm_dw_float(const uint m, const uint n, const uint k, const REAL alpha, global const REAL* A,
                          global const REAL* B, const REAL beta, global REAL* C) {
  const uint j = get_global_id(0), i = get_global_id(1);
  if (i >= m || j >= n) return;
  REAL s = 0;
  for (uint p = 0; p < k; ++p) s += A[2 * (TA ? p * m + i : i * k + p)] * B[2 * (TB ? j * k + p : p * n + j)];
  vstore2((REAL2)(alpha * s + beta * C[2 * (i * n + j)], 0), i * n + j, C);
}
