// Double-word axpy r = a*x + y (DF or DD, either storage): the structure of vec16 with
// chunks of VEC16 elements (two 16-byte loads per operand), UNR chunks per operand in
// flight per thread, grid-stride over cu*WAVES blocks; the last n % VEC16 elements are
// done one each by the first threads.
extern "C" __global__ void __launch_bounds__(WG) axpy_dw(const unsigned n, const REAL a_hi, const REAL a_lo,
                                                         const REAL* __restrict__ x, const REAL* __restrict__ y,
                                                         REAL* __restrict__ r) {
  const hb_dw a{a_hi, a_lo};
  const size_t nc = n / VEC16;
  const size_t stride = (size_t)gridDim.x * WG;
  const size_t tid = (size_t)blockIdx.x * WG + threadIdx.x;
  size_t c = tid;
  for (; c + (UNR - 1) * stride < nc; c += UNR * stride) {
    hb_chunk cx[UNR], cy[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) {
      cx[u] = hb_load_chunk(x, n, c + u * stride);
      cy[u] = hb_load_chunk(y, n, c + u * stride);
    }
#pragma unroll
    for (int u = 0; u < UNR; ++u) {
#pragma unroll
      for (int k = 0; k < VEC16; ++k) cx[u].e[k] = hb_mad(a, cx[u].e[k], cy[u].e[k]);
      hb_store_chunk(r, n, c + u * stride, cx[u]);
    }
  }
  for (; c < nc; c += stride) {
    hb_chunk cx = hb_load_chunk(x, n, c);
    const hb_chunk cy = hb_load_chunk(y, n, c);
#pragma unroll
    for (int k = 0; k < VEC16; ++k) cx.e[k] = hb_mad(a, cx.e[k], cy.e[k]);
    hb_store_chunk(r, n, c, cx);
  }
  const size_t t = nc * VEC16 + tid;  // tail: fewer than VEC16 elements
  if (t < n) hb_store_elem(r, n, t, hb_mad(a, hb_load_elem(x, n, t), hb_load_elem(y, n, t)));
}
