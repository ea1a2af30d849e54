// Planted fault: never returns (the volatile read keeps the loop; x holds finite numbers).
extern "C" __global__ void hang(const unsigned n, const REAL* x, REAL* y) {
  volatile const REAL* v = x;
  while (v[0] == v[0]) {
  }
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
