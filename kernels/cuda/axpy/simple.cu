// Seed 000's axpy: one element per thread, with a bounds check so that any n works.
extern "C" __global__ void axpy_simple(const unsigned n, const REAL a, const REAL* __restrict__ x,
                                       const REAL* __restrict__ y, REAL* __restrict__ r) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] = a * x[i] + y[i];
}
