// Block reductions. The result is valid in thread 0.

// Warp shuffles, then one value per warp through shared memory (BS a multiple of 32).
__device__ __forceinline__ REAL hb_warp_sum(REAL v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}
template <int BS>
__device__ __forceinline__ REAL hb_shfl_sum(REAL v) {
  __shared__ REAL warp_sums[BS / 32];
  v = hb_warp_sum(v);
  if (BS == 32) return v;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = threadIdx.x < BS / 32 ? warp_sums[threadIdx.x] : REAL(0);
  if (warp == 0) v = hb_warp_sum(v);
  return v;
}

#ifdef RWG  // only variants with a separate final pass define it
// Final pass: one block of RWG threads adds n partial sums into out[0] with warp
// shuffles (RWG a multiple of 32); the shared-memory tree is portable/common/reduce.k.
extern "C" __global__ void __launch_bounds__(RWG) reduce_sum_shfl(const unsigned n, const REAL* __restrict__ in,
                                                                  REAL* __restrict__ out) {
  REAL s = 0;
  for (unsigned i = threadIdx.x; i < n; i += RWG) s += in[i];
  s = hb_shfl_sum<RWG>(s);
  if (threadIdx.x == 0) out[0] = s;
}
#endif
