// Bandwidth-optimised axpy: 16-byte vectors, 2*UNR independent loads in flight per
// thread, grid-stride over a grid of a few waves.
extern "C" __global__ void __launch_bounds__(WG) axpy_vec16(const unsigned n, const REAL a, const REAL* __restrict__ x,
                                                            const REAL* __restrict__ y, REAL* __restrict__ r) {
  const size_t nv = n / VEC16;
  const REALV16* __restrict__ xv = reinterpret_cast<const REALV16*>(x);
  const REALV16* __restrict__ yv = reinterpret_cast<const REALV16*>(y);
  REALV16* __restrict__ rv = reinterpret_cast<REALV16*>(r);
  const size_t stride = (size_t)gridDim.x * WG;
  const size_t tid = (size_t)blockIdx.x * WG + threadIdx.x;
  size_t i = tid;
  for (; i + (UNR - 1) * stride < nv; i += UNR * stride) {
    REALV16 vx[UNR], vy[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) {
      vx[u] = xv[i + u * stride];
      vy[u] = yv[i + u * stride];
    }
#pragma unroll
    for (int u = 0; u < UNR; ++u) rv[i + u * stride] = hb_axpy16(a, vx[u], vy[u]);
  }
  for (; i < nv; i += stride) rv[i] = hb_axpy16(a, xv[i], yv[i]);
  const size_t t = nv * VEC16 + tid;  // scalar tail: fewer than VEC16 elements
  if (t < n) r[t] = a * x[t] + y[t];
}
