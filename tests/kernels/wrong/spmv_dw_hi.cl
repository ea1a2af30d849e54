// Deliberately wrong: DF/DD SpMV with the accurate mul and add, but val's lo words
// dropped (each product about u_w off). Interleaved storage only.
kernel void spmv_dw_hi(const uint rows, global const int* row_ptr, global const int* col, global const REAL* val,
                       global const REAL* x, const REAL alpha_hi, const REAL alpha_lo, const REAL beta_hi,
                       const REAL beta_lo, global REAL* y) {
  const uint r = get_global_id(0);
  if (r >= rows) return;
  dwt s = (dwt)((REAL)0, (REAL)0);
  for (int j = row_ptr[r]; j < row_ptr[r + 1]; ++j) s = DW_ADD(s, DW_MUL((dwt)(val[2 * j], (REAL)0), vload2(col[j], x)));
  const dwt v = DW_ADD(DW_MUL((dwt)(alpha_hi, alpha_lo), s), DW_MUL((dwt)(beta_hi, beta_lo), vload2(r, y)));
  vstore2(v, r, y);
}
