// Single-launch dot: the loads of vec16 (16-byte vectors, UNR in flight, cu*WAVES
// blocks, grid-stride), a warp-shuffle block sum, and then the last block to finish
// adds the partial sums, so no second launch is needed. Each block publishes its partial
// and fences before taking a ticket; the block that draws the last ticket reads every
// partial through L2 (ld.cg) and resets the counter for the next run.
extern "C" __global__ void __launch_bounds__(WG) dot_onepass(const unsigned n, const REAL* __restrict__ x,
                                                             const REAL* __restrict__ y, REAL* __restrict__ partial,
                                                             unsigned* __restrict__ counter, REAL* __restrict__ result) {
  const size_t nv = n / VEC16;
  const REALV16* __restrict__ xv = reinterpret_cast<const REALV16*>(x);
  const REALV16* __restrict__ yv = reinterpret_cast<const REALV16*>(y);
  const size_t stride = (size_t)gridDim.x * WG;
  const size_t tid = (size_t)blockIdx.x * WG + threadIdx.x;
  REALV16 acc[UNR];
#pragma unroll
  for (int u = 0; u < UNR; ++u) acc[u] = hb_zero16(REAL(0));
  size_t i = tid;
  for (; i + (UNR - 1) * stride < nv; i += UNR * stride) {
    REALV16 vx[UNR], vy[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) {
      vx[u] = xv[i + u * stride];
      vy[u] = yv[i + u * stride];
    }
#pragma unroll
    for (int u = 0; u < UNR; ++u) acc[u] = hb_fma16(vx[u], vy[u], acc[u]);
  }
  for (; i < nv; i += stride) acc[0] = hb_fma16(xv[i], yv[i], acc[0]);
  REAL s = 0;
#pragma unroll
  for (int u = 0; u < UNR; ++u) s += hb_hsum16(acc[u]);
  const size_t t = nv * VEC16 + tid;  // scalar tail: fewer than VEC16 elements
  if (t < n) s += x[t] * y[t];
  s = hb_shfl_sum<WG>(s);

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
