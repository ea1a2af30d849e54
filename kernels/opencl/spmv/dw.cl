// CSR SpMV in DF and DD (val, x, y double-words in the storage SOA gives; alpha and beta as
// words): products with the accurate multiply of common/dfdd.h, the row sum with the sloppy
// add (JMP Alg. 5; as cuda/spmv/dw.cu, whose comment says why docs/validation.md's per-row
// bound still holds), α and β with the accurate operations. Two kernels over one source: scalar (one work-item per row, as
// portable/spmv/scalar.k) and vector (TPR work-items per row and a local-memory tree, as
// vector.cl). As in BLAS, y is not read when beta is 0.
inline dwt spmv_dw_axpby(const dwt alpha, const dwt s, const dwt beta, global const REAL* restrict y,
                         const uint rows, const uint r) {
  const dwt as = DW_MUL(alpha, s);
  return beta.x == (REAL)0 ? as : DW_ADD(as, DW_MUL(beta, dw_load(y, rows, r)));
}

kernel void spmv_dw_scalar(const uint rows, const uint cols, const uint nnz, global const int* restrict row_ptr,
                           global const int* restrict col, global const REAL* restrict val,
                           global const REAL* restrict x, const REAL alpha_hi, const REAL alpha_lo,
                           const REAL beta_hi, const REAL beta_lo, global REAL* restrict y) {
  const uint r = get_global_id(0);
  if (r >= rows) return;
  const int end = row_ptr[r + 1];
  dwt s = (dwt)((REAL)0, (REAL)0);
  for (int j = row_ptr[r]; j < end; ++j) s = dw_add_sloppy(s, DW_MUL(dw_load(val, nnz, j), dw_load(x, cols, col[j])));
  dw_store(spmv_dw_axpby((dwt)(alpha_hi, alpha_lo), s, (dwt)(beta_hi, beta_lo), y, rows, r), y, rows, r);
}

#ifdef TPR  // dw_vector only
// A work-group takes WG / TPR consecutive rows; the loop over row blocks is uniform across
// the work-group, so the barriers inside it are reached by every work-item.
kernel void spmv_dw_vector(const uint rows, const uint cols, const uint nnz, global const int* restrict row_ptr,
                           global const int* restrict col, global const REAL* restrict val,
                           global const REAL* restrict x, const REAL alpha_hi, const REAL alpha_lo,
                           const REAL beta_hi, const REAL beta_lo, global REAL* restrict y) {
  local dwt part[WG];
  const uint lid = get_local_id(0);
  const uint lane = lid % TPR;
  const uint rows_per_group = WG / TPR;
  const dwt alpha = (dwt)(alpha_hi, alpha_lo), beta = (dwt)(beta_hi, beta_lo);
  for (uint base = get_group_id(0) * rows_per_group; base < rows; base += get_num_groups(0) * rows_per_group) {
    const uint r = base + lid / TPR;
    dwt s = (dwt)((REAL)0, (REAL)0);
    if (r < rows) {
      const int end = row_ptr[r + 1];
      for (int j = row_ptr[r] + (int)lane; j < end; j += TPR)
        s = dw_add_sloppy(s, DW_MUL(dw_load(val, nnz, j), dw_load(x, cols, col[j])));
    }
    part[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = TPR / 2; off > 0; off >>= 1) {
      if (lane < off) part[lid] = dw_add_sloppy(part[lid], part[lid + off]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    // Only this work-item writes part[lid] again, so no barrier is needed before the next block.
    if (lane == 0 && r < rows) dw_store(spmv_dw_axpby(alpha, part[lid], beta, y, rows, r), y, rows, r);
  }
}
#endif
