// Double-word dot (DF or DD, either storage) with the accurate mul and add: UNR loads in
// flight per work-item into one accumulator, grid-stride over WAVES work-groups per
// compute unit, a local-memory tree per work-group, then a final pass over the partials.
kernel void dot_dw(const uint n, global const REAL* restrict x, global const REAL* restrict y,
                   global REAL* restrict partial) {
  local dwt lb[WG];
  const size_t stride = get_global_size(0);
  size_t i = get_global_id(0);
  dwt s = (dwt)((REAL)0, (REAL)0);
  for (; i + (UNR - 1) * stride < n; i += UNR * stride) {
    dwt vx[UNR], vy[UNR];
#pragma unroll
    for (int k = 0; k < UNR; ++k) {
      vx[k] = dw_load(x, n, i + k * stride);
      vy[k] = dw_load(y, n, i + k * stride);
    }
#pragma unroll
    for (int k = 0; k < UNR; ++k) s = DW_ADD(s, DW_MUL(vx[k], vy[k]));
  }
  for (; i < n; i += stride) s = DW_ADD(s, DW_MUL(dw_load(x, n, i), dw_load(y, n, i)));
  s = dw_group_sum(s, lb, WG);
  if (get_local_id(0) == 0) vstore2(s, get_group_id(0), partial);
}

// Final pass: one work-group of RWG work-items adds the n partial double-words.
kernel void dw_reduce(const uint n, global const REAL* restrict in, global REAL* restrict out) {
  local dwt lb[RWG];
  dwt s = (dwt)((REAL)0, (REAL)0);
  for (uint i = get_local_id(0); i < n; i += RWG) s = DW_ADD(s, vload2(i, in));
  s = dw_group_sum(s, lb, RWG);
  if (get_local_id(0) == 0) vstore2(s, 0, out);
}
