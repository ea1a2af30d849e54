// Planted fault: does not build (an undeclared identifier).
extern "C" __global__ void broken(const unsigned n, const REAL* x, REAL* y) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + not_declared_anywhere;
}
