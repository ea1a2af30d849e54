// Bandwidth-optimised dot: each thread's share from hb_dot16_thread (16-byte vectors,
// UNR loads in flight, grid-stride over cu*WAVES blocks), a warp-shuffle block sum,
// then one small block adds the few hundred partials (reduce_sum_shfl).
extern "C" __global__ void __launch_bounds__(WG) dot_vec16(const unsigned n, const REAL* __restrict__ x,
                                                           const REAL* __restrict__ y, REAL* __restrict__ partial) {
  const REAL s = hb_shfl_sum<WG>(hb_dot16_thread(n, x, y));
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}
