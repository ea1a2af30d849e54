// Double-word axpy r = a*x + y (DF or DD, either storage) with the accurate mul and add:
// UNR elements per work-item in flight, grid-stride (consecutive work-items take
// consecutive elements, so every load is coalesced in either storage).
kernel void axpy_dw(const uint n, const REAL a_hi, const REAL a_lo, global const REAL* restrict x,
                    global const REAL* restrict y, global REAL* restrict r) {
  const dwt a = (dwt)(a_hi, a_lo);
  const size_t stride = get_global_size(0);
  size_t i = get_global_id(0);
  for (; i + (UNR - 1) * stride < n; i += UNR * stride) {
    dwt vx[UNR], vy[UNR];
#pragma unroll
    for (int k = 0; k < UNR; ++k) {
      vx[k] = dw_load(x, n, i + k * stride);
      vy[k] = dw_load(y, n, i + k * stride);
    }
#pragma unroll
    for (int k = 0; k < UNR; ++k) dw_store(DW_ADD(DW_MUL(a, vx[k]), vy[k]), r, n, i + k * stride);
  }
  for (; i < n; i += stride) dw_store(DW_ADD(DW_MUL(a, dw_load(x, n, i)), dw_load(y, n, i)), r, n, i);
}
