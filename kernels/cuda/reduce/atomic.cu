// Block sums by warp shuffles, then one atomicAdd per block into the result (zeroed by
// the first launch), so no final pass. Floating-point atomics land in whatever order
// the blocks finish: the result differs from run to run in its last bits, and every
// such order is inside the op's bound γ_{n−1}·Σ|x_i|. I32 adds as uint: exact.
extern "C" __global__ void reduce_zero(REAL* __restrict__ result) {
  if (threadIdx.x == 0) *result = 0;
}

extern "C" __global__ void __launch_bounds__(WG) reduce_atomic(const unsigned n, const REAL* __restrict__ x,
                                                               REAL* __restrict__ result) {
  const REAL s = hb_shfl_sum<WG>(hb_reduce_thread(n, x));
  if (threadIdx.x == 0) atomicAdd(result, s);
}
