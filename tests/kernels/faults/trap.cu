// Planted fault: __trap() ends the kernel with cudaErrorLaunchFailure, a sticky error.
extern "C" __global__ void trap(const unsigned n, const REAL* x, REAL* y) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) __trap();
  if (i < n) y[i] = x[i];
}
