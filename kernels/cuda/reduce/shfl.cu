// Block sums by warp shuffles (hb_shfl_sum: __shfl_down_sync within each warp, one
// value per warp through shared memory), then a final pass over the block partials.
extern "C" __global__ void __launch_bounds__(WG) reduce_shfl(const unsigned n, const REAL* __restrict__ x,
                                                             REAL* __restrict__ partial) {
  const REAL s = hb_shfl_sum<WG>(hb_reduce_thread(n, x));
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}
