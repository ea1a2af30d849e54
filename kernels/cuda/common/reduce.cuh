// Block reductions. The result is valid in thread 0. A sum unless
// portable/common/reduce_kind.k came first (reduce's other kinds).
#ifndef HB_RED
#define HB_RED(a, b) ((a) + (b))
#define HB_RED_START(p) REAL(0)
#define HB_RED_END(s) (s)
#endif

// Warp shuffles over segments of W lanes (W a power of two up to 32): lane 0 of each
// segment gets its combination, so no lane outside it needs an identity value.
template <int W = 32>
__device__ __forceinline__ REAL hb_warp_sum(REAL v) {
#pragma unroll
  for (int off = W / 2; off > 0; off >>= 1) v = HB_RED(v, __shfl_down_sync(0xffffffffu, v, off, W));
  return v;
}
// Warp shuffles, then one value per warp through shared memory (BS a power of two >= 32).
template <int BS>
__device__ __forceinline__ REAL hb_shfl_sum(REAL v) {
  __shared__ REAL warp_sums[BS / 32];
  v = hb_warp_sum(v);
  if (BS == 32) return v;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) v = hb_warp_sum<BS / 32>(warp_sums[lane % (BS / 32)]);
  return v;
}

#ifdef RWG  // only variants with a separate final pass define it
// Final pass: one block of RWG threads combines n partials into out[0] with warp
// shuffles (RWG a power of two >= 32); the shared-memory tree is portable/common/reduce.k.
extern "C" __global__ void __launch_bounds__(RWG) reduce_sum_shfl(const unsigned n, const REAL* __restrict__ in,
                                                                  REAL* __restrict__ out) {
  REAL s = HB_RED_START(in);
  for (unsigned i = threadIdx.x; i < n; i += RWG) s = HB_RED(s, in[i]);
  s = hb_shfl_sum<RWG>(s);
  if (threadIdx.x == 0) out[0] = HB_RED_END(s);
}
#endif
