// Block sums by a shared-memory tree (group_sum of portable/common/reduce.k: log2(WG)
// steps, a barrier each), then the tree's final pass over the block partials.
extern "C" __global__ void __launch_bounds__(WG) reduce_tree(const unsigned n, const REAL* __restrict__ x,
                                                             REAL* __restrict__ partial) {
  __shared__ REAL buf[WG];
  const REAL s = group_sum(hb_reduce_thread(n, x), buf, WG);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}
