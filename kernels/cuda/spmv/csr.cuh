// Shared by the CSR SpMV kernels. y = alpha*s + beta*y; as in BLAS, y is not read when beta
// is 0, so an initial y that holds NaN does not leak into the result.
__device__ __forceinline__ REAL hb_spmv_axpby(const REAL alpha, const REAL s, const REAL beta, const REAL* y) {
  return beta == REAL(0) ? alpha * s : alpha * s + beta * *y;
}
__device__ __forceinline__ float hb_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double hb_fma(double a, double b, double c) { return fma(a, b, c); }
