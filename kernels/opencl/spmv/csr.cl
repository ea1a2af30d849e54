// Shared by the CSR SpMV kernels. y = alpha*s + beta*y; as in BLAS, y is not read when beta
// is 0, so an initial y that holds NaN does not leak into the result.
inline REAL spmv_axpby(const REAL alpha, const REAL s, const REAL beta, global const REAL* y) {
  return beta == 0 ? alpha * s : alpha * s + beta * *y;
}
