// Seed 000's dot0: each thread loads two products (WG apart), then a shared-memory tree
// reduction gives one partial sum per block. Out-of-range loads count as zero.
extern "C" __global__ void __launch_bounds__(WG) dot_local(const unsigned n, const REAL* __restrict__ x,
                                                           const REAL* __restrict__ y, REAL* __restrict__ partial) {
  __shared__ REAL lb[WG];
  const unsigned i = blockIdx.x * (2 * WG) + threadIdx.x;
  REAL s = 0;
  if (i < n) s = x[i] * y[i];
  if (i + WG < n) s += x[i + WG] * y[i + WG];
  s = hb_tree_sum<WG>(s, lb);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}
