// The work-item part of the OpenCL reduce variants: VW-wide vector loads over a
// grid-stride loop; the last n % VW elements go to the first work-items. I32 adds as
// uint (wraps).
inline REAL reduce_thread(const uint n, global const REAL* restrict x) {
  const uint gid = get_global_id(0), stride = get_global_size(0), nv = n / VW;
  realv acc = (realv)(0);
  for (uint i = gid; i < nv; i += stride) acc += LOADV(i, x);
  REAL s = HSUM(acc);
  const uint t = nv * VW + gid;
  if (t < n) s += x[t];
  return s;
}
