// The thread-level part shared by every CUDA reduce variant, so that they differ only
// in how a block's values are combined: 16-byte vector loads (REALV16: float4, double2,
// uint4 for I32), UNR of them in flight per thread, over a grid-stride loop; the last
// n % VEC16 elements go to the first threads. Each element is transformed (HB_MAP) and
// combined (HB_RED) as the reduce's kind says (portable/common/reduce_kind.k); a
// thread without elements holds HB_RED_START (0, or x[0] for the maximum). I32 adds
// as uint (wraps). LOAD is the cache operator of the 16-byte loads, as CUB's
// CacheLoadModifier names them: 0 LOAD_DEFAULT (ld.global), 1 LOAD_LDG (ld.global.nc,
// the read-only path), 2 LOAD_CA (cache at every level), 3 LOAD_CG (L2 only), 4 LOAD_CS
// (streaming: evict first).
#if LOAD == 0
#define HB_LOAD16(p) (*(p))
#elif LOAD == 1
#define HB_LOAD16(p) __ldg(p)
#elif LOAD == 2
#define HB_LOAD16(p) __ldca(p)
#elif LOAD == 3
#define HB_LOAD16(p) __ldcg(p)
#else
#define HB_LOAD16(p) __ldcs(p)
#endif
#if VEC16 == 4
__device__ __forceinline__ REAL hb_lanes(const REALV16 v) {
  return HB_RED(HB_RED(HB_MAP(v.x), HB_MAP(v.y)), HB_RED(HB_MAP(v.z), HB_MAP(v.w)));
}
#else
__device__ __forceinline__ REAL hb_lanes(const REALV16 v) { return HB_RED(HB_MAP(v.x), HB_MAP(v.y)); }
#endif

__device__ __forceinline__ REAL hb_reduce_thread(const unsigned n, const REAL* __restrict__ x) {
  const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  const unsigned nv = n / VEC16;
  const REALV16* xv = reinterpret_cast<const REALV16*>(x);
  REAL acc[UNR];
#pragma unroll
  for (int u = 0; u < UNR; ++u) acc[u] = HB_RED_START(x);
  unsigned i = gid;
  for (; i + (UNR - 1) * stride < nv; i += UNR * stride) {
    REALV16 v[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) v[u] = HB_LOAD16(&xv[i + u * stride]);
#pragma unroll
    for (int u = 0; u < UNR; ++u) acc[u] = HB_RED(acc[u], hb_lanes(v[u]));
  }
  for (; i < nv; i += stride) acc[0] = HB_RED(acc[0], hb_lanes(HB_LOAD16(&xv[i])));
  const unsigned t = nv * VEC16 + gid;
  if (t < n) acc[0] = HB_RED(acc[0], HB_MAP(x[t]));
  REAL s = acc[0];
#pragma unroll
  for (int u = 1; u < UNR; ++u) s = HB_RED(s, acc[u]);
  return s;
}
