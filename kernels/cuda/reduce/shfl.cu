// Block results by warp shuffles (BLOCK 0, hb_shfl_sum: __shfl_down_sync within each warp,
// one value per warp through shared memory) or by raking (BLOCK 1: every thread's value
// through shared memory, the first warp combines them strided, then by shuffles), then a
// final pass over the block partials.
#if BLOCK == 1
template <int BS>
__device__ __forceinline__ REAL hb_raking(const REAL v) {
  __shared__ REAL vals[BS];
  vals[threadIdx.x] = v;
  __syncthreads();
  REAL s = v;
  if (threadIdx.x < 32) {
    s = vals[threadIdx.x];
    for (int i = threadIdx.x + 32; i < BS; i += 32) s = HB_RED(s, vals[i]);
    s = hb_warp_sum(s);
  }
  return s;
}
#define HB_BLOCK_RED(v) hb_raking<WG>(v)
#else
#define HB_BLOCK_RED(v) hb_shfl_sum<WG>(v)
#endif

extern "C" __global__ void __launch_bounds__(WG) reduce_shfl(const unsigned n, const REAL* __restrict__ x,
                                                             REAL* __restrict__ partial) {
  const REAL s = HB_BLOCK_RED(hb_reduce_thread(n, x));
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}
