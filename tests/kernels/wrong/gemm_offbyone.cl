// Deliberately wrong: the k-loop stops one product short (p < k - 1), so every element
// misses a_{i,k-1}·b_{k-1,j}. TA and TB are ignored: the tests run it as NN only.
kernel void gemm_offbyone(const uint m, const uint n, const uint k, const REAL alpha, global const REAL* A,
                          global const REAL* B, const REAL beta, global REAL* C) {
  const uint j = get_global_id(0), i = get_global_id(1);
  if (i >= m || j >= n) return;
  REAL s = 0;
  for (uint p = 0; p + 1 < k; ++p) s += A[i * k + p] * B[p * n + j];
  C[i * n + j] = alpha * s + beta * C[i * n + j];
}
