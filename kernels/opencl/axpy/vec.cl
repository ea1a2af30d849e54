// VW-wide vector loads and stores, WPT vectors per work-item in a grid-stride loop;
// the last n % VW elements are done one each by the first work-items.
kernel void axpy_vec(const uint n, const REAL a, global const REAL* restrict x, global const REAL* restrict y,
                     global REAL* restrict r) {
  const uint gid = get_global_id(0);
  const uint stride = get_global_size(0);
  const uint nv = n / VW;
  for (uint i = gid; i < nv; i += stride) STOREV(a * LOADV(i, x) + LOADV(i, y), i, r);
  const uint t = nv * VW + gid;
  if (t < n) r[t] = a * x[t] + y[t];
}
