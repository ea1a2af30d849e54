// FMA ceiling: each thread advances EPT independent chains together (elements tid,
// tid+T, ..., T = all threads, so loads and stores stay coalesced); each step issues EPT
// independent fused multiply-adds, hiding FMA latency within the thread as well.
// Register caps for reg_pressure (reg_pressure.json; both 0 in fma.json): MINB > 0 adds
// a minimum of blocks per SM to the launch bounds, MAXREG > 0 caps the registers per
// thread (__maxnreg__, per kernel what nvcc's -maxrregcount does per file); with EPT
// chains live across the loop, a cap below EPT words forces spills to local memory.
#if defined(MAXREG) && MAXREG > 0
#define HB_FMA_BOUNDS __maxnreg__(MAXREG)
#elif defined(MINB) && MINB > 0
#define HB_FMA_BOUNDS __launch_bounds__(WG, MINB)
#else
#define HB_FMA_BOUNDS __launch_bounds__(WG)
#endif
extern "C" __global__ void HB_FMA_BOUNDS peak_fma(const unsigned n, const REAL b, const REAL c,
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
