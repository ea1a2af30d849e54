// Bandwidth-oriented dot: VW-wide vector loads in a grid-stride loop over a grid of
// WAVES work-groups per compute unit, a local-memory tree per work-group, then a final
// pass over the few partial sums. The last n % VW products go to the first work-items.
kernel void dot_vec(const uint n, global const REAL* restrict x, global const REAL* restrict y,
                    global REAL* restrict partial) {
  local REAL lb[WG];
  const uint gid = get_global_id(0);
  const uint stride = get_global_size(0);
  const uint nv = n / VW;
  realv acc = (realv)(0);
  for (uint i = gid; i < nv; i += stride) acc += LOADV(i, x) * LOADV(i, y);
  REAL s = HSUM(acc);
  const uint t = nv * VW + gid;
  if (t < n) s += x[t] * y[t];
  s = group_sum(s, lb, WG);
  if (get_local_id(0) == 0) partial[get_group_id(0)] = s;
}
