// VW-wide vector loads and stores, WPT vectors per work-item in a grid-stride loop;
// the last n % VW elements are copied one each by the first work-items.
kernel void copy_vec(const uint n, global const REAL* restrict x, global REAL* restrict y) {
  const uint gid = get_global_id(0);
  const uint stride = get_global_size(0);
  const uint nv = n / VW;
  for (uint i = gid; i < nv; i += stride) STOREV(LOADV(i, x), i, y);
  const uint t = nv * VW + gid;
  if (t < n) y[t] = x[t];
}
