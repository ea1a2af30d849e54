// Seed 000's dot1, made correct: global memory only, each thread sums a contiguous chunk
// of CHK products (the access pattern that suits CPUs), one partial per thread.
extern "C" __global__ void dot_global(const unsigned n, const REAL* __restrict__ x, const REAL* __restrict__ y,
                                      REAL* __restrict__ partial) {
  const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  const size_t start = (size_t)gid * CHK;
  const size_t end = start + CHK < n ? start + CHK : (size_t)n;
  REAL s = 0;
  for (size_t i = start; i < end; ++i) s += x[i] * y[i];
  partial[gid] = s;
}
