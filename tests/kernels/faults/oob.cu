// Planted fault: reads 2^40 elements past x: cudaErrorIllegalAddress, a sticky error.
extern "C" __global__ void oob(const unsigned n, const REAL* x, REAL* y) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i + (1ull << 40)];
}
