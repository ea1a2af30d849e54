// Block sums of double-words with the accurate add; the result is valid in thread 0.
__device__ __forceinline__ hb_dw hb_dw_warp_sum(hb_dw v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    v = hetbench::add_accurate(v, hb_dw{__shfl_down_sync(0xffffffffu, v.hi, off), __shfl_down_sync(0xffffffffu, v.lo, off)});
  return v;
}

// Warp shuffles, then one value per warp through shared memory (BS a multiple of 32).
template <int BS>
__device__ __forceinline__ hb_dw hb_dw_block_sum(hb_dw v) {
  __shared__ hb_dw warp_sums[BS / 32];
  v = hb_dw_warp_sum(v);
  if (BS == 32) return v;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = threadIdx.x < BS / 32 ? warp_sums[threadIdx.x] : hb_dw{0, 0};
  if (warp == 0) v = hb_dw_warp_sum(v);
  return v;
}
