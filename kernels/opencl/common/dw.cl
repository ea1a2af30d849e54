// Double-word (DF, DD) elements for kernels over common/dfdd.h: dwt is one element
// (x = hi, y = lo), DW_ADD and DW_MUL the accurate operations the ops' error bounds
// assume, dw_load/dw_store element i of an operand of n elements in the storage given
// by SOA: interleaved (hi, lo) pairs (0) or the n hi words followed by the n lo words (1).
#if !defined(HB_DW)
#error "dw.cl needs a double-word precision (DF or DD)"
#endif
typedef REAL2 dwt;
#define DW_ADD dw_add_accurate
#define DW_MUL dw_mul_accurate

inline dwt dw_load(global const REAL* restrict p, const uint n, const size_t i) {
#if SOA
  return (dwt)(p[i], p[(size_t)n + i]);
#else
  return vload2(i, p);
#endif
}

inline void dw_store(const dwt v, global REAL* restrict p, const uint n, const size_t i) {
#if SOA
  p[i] = v.x;
  p[(size_t)n + i] = v.y;
#else
  vstore2(v, i, p);
#endif
}

// Tree sum of one double-word per work-item in local memory (wgsize a power of two);
// the result is valid in work-item 0.
inline dwt dw_group_sum(dwt v, local dwt* buf, const uint wgsize) {
  const uint lid = get_local_id(0);
  buf[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = wgsize / 2; off > 0; off >>= 1) {
    if (lid < off) buf[lid] = DW_ADD(buf[lid], buf[lid + off]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return buf[0];
}
