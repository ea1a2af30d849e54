// One thread's share of x.y (blocks of WG threads): 16-byte vectors, UNR loads per operand in flight, a
// grid-stride loop over the whole grid, and the scalar tail (fewer than VEC16 elements)
// taken by the first threads. Shared by dot/vec16 (two launches) and dot/onepass.
__device__ __forceinline__ REAL hb_dot16_thread(const unsigned n, const REAL* __restrict__ x,
                                                const REAL* __restrict__ y) {
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
  const size_t t = nv * VEC16 + tid;
  if (t < n) s += x[t] * y[t];
  return s;
}
