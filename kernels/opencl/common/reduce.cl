// Tree reduction of one value per work-item in local memory; the result is valid in
// work-item 0. WGSIZE must be a power of two.
inline REAL group_sum(REAL v, local REAL* buf, const uint wgsize) {
  const uint lid = get_local_id(0);
  buf[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = wgsize / 2; off > 0; off >>= 1) {
    if (lid < off) buf[lid] += buf[lid + off];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return buf[0];
}

// Final pass: one work-group of RWG work-items adds n partial sums into out[0].
kernel void reduce_sum(const uint n, global const REAL* restrict in, global REAL* restrict out) {
  local REAL buf[RWG];
  REAL s = 0;
  for (uint i = get_local_id(0); i < n; i += RWG) s += in[i];
  s = group_sum(s, buf, RWG);
  if (get_local_id(0) == 0) out[0] = s;
}
