// Bandwidth-optimised copy: 16-byte vectors, UNR independent loads in flight per thread
// (all issued before the first store), grid-stride over a grid of a few waves.
extern "C" __global__ void __launch_bounds__(WG) copy_vec16(const unsigned n, const REAL* __restrict__ x,
                                                            REAL* __restrict__ y) {
  const size_t nv = n / VEC16;
  const REALV16* __restrict__ xv = reinterpret_cast<const REALV16*>(x);
  REALV16* __restrict__ yv = reinterpret_cast<REALV16*>(y);
  const size_t stride = (size_t)gridDim.x * WG;
  const size_t tid = (size_t)blockIdx.x * WG + threadIdx.x;
  size_t i = tid;
  for (; i + (UNR - 1) * stride < nv; i += UNR * stride) {
    REALV16 v[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) v[u] = xv[i + u * stride];
#pragma unroll
    for (int u = 0; u < UNR; ++u) yv[i + u * stride] = v[u];
  }
  for (; i < nv; i += stride) yv[i] = xv[i];
  const size_t t = nv * VEC16 + tid;  // scalar tail: fewer than VEC16 elements
  if (t < n) y[t] = x[t];
}
