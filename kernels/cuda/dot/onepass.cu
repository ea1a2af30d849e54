// Single-launch dot: the loads of vec16 (hb_dot16_thread), a warp-shuffle block sum,
// and then the last block to finish adds the partial sums, so no second launch is
// needed. Each block publishes its partial and fences before taking a ticket; the block
// that draws the last ticket reads every partial through L2 (ld.cg) and resets the
// counter for the next run.
extern "C" __global__ void __launch_bounds__(WG) dot_onepass(const unsigned n, const REAL* __restrict__ x,
                                                             const REAL* __restrict__ y, REAL* __restrict__ partial,
                                                             unsigned* __restrict__ counter, REAL* __restrict__ result) {
  const REAL s = hb_shfl_sum<WG>(hb_dot16_thread(n, x, y));

  __shared__ bool last;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s;
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  REAL total = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += WG) total += __ldcg(&partial[b]);
  total = hb_shfl_sum<WG>(total);
  if (threadIdx.x == 0) {
    *result = total;
    *counter = 0;
  }
}
