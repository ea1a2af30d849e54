// Seed 000's dot0: each work-item loads two products (WG apart), then a local-memory
// tree reduction gives one partial sum per work-group. Out-of-range loads count as zero,
// so any n works. WG is a compile-time constant, so the tree loop unrolls fully.
kernel void dot_local(const uint n, global const REAL* restrict x, global const REAL* restrict y,
                      global REAL* restrict partial) {
  local REAL lb[WG];
  const uint lid = get_local_id(0);
  const uint i = get_group_id(0) * (2 * WG) + lid;
  REAL s = 0;
  if (i < n) s = x[i] * y[i];
  if (i + WG < n) s += x[i + WG] * y[i + WG];
  s = group_sum(s, lb, WG);
  if (lid == 0) partial[get_group_id(0)] = s;
}
