// Double-word dot (DF or DD, either storage) in one launch, as onepass: chunks of VEC16
// elements (two 16-byte loads per operand), UNR chunks in flight per thread with one
// accumulator each, grid-stride over cu*WAVES blocks, warp-shuffle block sums; the last
// block to finish adds the per-block partials (double-words in `partial`, read through
// L2) and resets the counter for the next run. Every product and sum uses the accurate
// mul and add (common/dfdd.h).
extern "C" __global__ void __launch_bounds__(WG) dot_dw(const unsigned n, const REAL* __restrict__ x,
                                                        const REAL* __restrict__ y, REAL* __restrict__ partial,
                                                        unsigned* __restrict__ counter, REAL* __restrict__ result) {
  const size_t nc = n / VEC16;
  const size_t stride = (size_t)gridDim.x * WG;
  const size_t tid = (size_t)blockIdx.x * WG + threadIdx.x;
  hb_dw acc[UNR];
#pragma unroll
  for (int u = 0; u < UNR; ++u) acc[u] = hb_dw{0, 0};
  size_t c = tid;
  for (; c + (UNR - 1) * stride < nc; c += UNR * stride) {
    hb_chunk cx[UNR], cy[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) {
      cx[u] = hb_load_chunk(x, n, c + u * stride);
      cy[u] = hb_load_chunk(y, n, c + u * stride);
    }
#pragma unroll
    for (int u = 0; u < UNR; ++u)
#pragma unroll
      for (int k = 0; k < VEC16; ++k) acc[u] = hb_mad(cx[u].e[k], cy[u].e[k], acc[u]);
  }
  for (; c < nc; c += stride) {
    const hb_chunk cx = hb_load_chunk(x, n, c), cy = hb_load_chunk(y, n, c);
#pragma unroll
    for (int k = 0; k < VEC16; ++k) acc[0] = hb_mad(cx.e[k], cy.e[k], acc[0]);
  }
  const size_t t = nc * VEC16 + tid;  // tail: fewer than VEC16 elements
  if (t < n) acc[0] = hb_mad(hb_load_elem(x, n, t), hb_load_elem(y, n, t), acc[0]);
#pragma unroll
  for (int u = 1; u < UNR; ++u) acc[0] = hetbench::add_accurate(acc[0], acc[u]);
  const hb_dw s = hb_dw_block_sum<WG>(acc[0]);

  __shared__ bool last;
  if (threadIdx.x == 0) {
    partial[2 * blockIdx.x] = s.hi;
    partial[2 * blockIdx.x + 1] = s.lo;
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  hb_dw total{0, 0};
  for (unsigned b = threadIdx.x; b < gridDim.x; b += WG)
    total = hetbench::add_accurate(total, hb_dw{__ldcg(&partial[2 * b]), __ldcg(&partial[2 * b + 1])});
  total = hb_dw_block_sum<WG>(total);
  if (threadIdx.x == 0) {
    result[0] = total.hi;
    result[1] = total.lo;
    *counter = 0;
  }
}
