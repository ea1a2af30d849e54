// FMA ceiling: each thread advances EPT independent chains together (elements tid,
// tid+T, ..., T = all threads, so loads and stores stay coalesced); each step issues EPT
// independent fused multiply-adds, hiding FMA latency within the thread as well.
extern "C" __global__ void __launch_bounds__(WG) peak_fma(const unsigned n, const REAL b, const REAL c,
                                                          const int iters, const REAL* __restrict__ a,
                                                          REAL* __restrict__ out) {
  const size_t T = (size_t)gridDim.x * WG;
  const size_t tid = (size_t)blockIdx.x * WG + threadIdx.x;
  REAL x[EPT];
#pragma unroll
  for (int j = 0; j < EPT; ++j) x[j] = tid + j * T < n ? a[tid + j * T] : REAL(0);
  for (int k = 0; k < iters; ++k) {
#pragma unroll
    for (int j = 0; j < EPT; ++j) x[j] = fma(x[j], b, c);
  }
#pragma unroll
  for (int j = 0; j < EPT; ++j)
    if (tid + j * T < n) out[tid + j * T] = x[j];
}
