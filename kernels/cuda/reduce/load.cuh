// The thread-level part shared by every CUDA reduce variant, so that they differ only
// in how a block's values are combined: 16-byte vector loads (REALV16: float4, double2,
// uint4 for I32), UNR of them in flight per thread, over a grid-stride loop; the last
// n % VEC16 elements go to the first threads. I32 adds as uint (wraps).
__device__ __forceinline__ float hb_lanes(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ double hb_lanes(double2 v) { return v.x + v.y; }
__device__ __forceinline__ unsigned hb_lanes(uint4 v) { return (v.x + v.y) + (v.z + v.w); }

__device__ __forceinline__ REAL hb_reduce_thread(const unsigned n, const REAL* __restrict__ x) {
  const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  const unsigned nv = n / VEC16;
  const REALV16* xv = reinterpret_cast<const REALV16*>(x);
  REAL acc[UNR];
#pragma unroll
  for (int u = 0; u < UNR; ++u) acc[u] = 0;
  unsigned i = gid;
  for (; i + (UNR - 1) * stride < nv; i += UNR * stride) {
    REALV16 v[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) v[u] = __ldg(&xv[i + u * stride]);
#pragma unroll
    for (int u = 0; u < UNR; ++u) acc[u] += hb_lanes(v[u]);
  }
  for (; i < nv; i += stride) acc[0] += hb_lanes(__ldg(&xv[i]));
  const unsigned t = nv * VEC16 + gid;
  if (t < n) acc[0] += x[t];
  REAL s = 0;
#pragma unroll
  for (int u = 0; u < UNR; ++u) s += acc[u];
  return s;
}
