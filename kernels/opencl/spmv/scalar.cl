// Seed 000's global-memory SpMV: one work-item per row, no local memory. Neighbouring
// work-items walk neighbouring rows, so loads coalesce only through the caches.
kernel void spmv_scalar(const uint rows, global const int* restrict row_ptr, global const int* restrict col,
                        global const REAL* restrict val, global const REAL* restrict x, const REAL alpha,
                        const REAL beta, global REAL* restrict y) {
  const uint r = get_global_id(0);
  if (r >= rows) return;
  const int end = row_ptr[r + 1];
  REAL s = 0;
  for (int j = row_ptr[r]; j < end; ++j) s += val[j] * x[col[j]];
  y[r] = spmv_axpby(alpha, s, beta, y + r);
}
