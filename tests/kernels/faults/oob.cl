// Planted fault: reads 2^40 elements past x, far outside any mapping. On a CPU device
// (PoCL) the kernel runs in the host process and the read is a segmentation fault.
kernel void oob(const uint n, global const REAL* x, global REAL* y) {
  const uint i = get_global_id(0);
  if (i < n) y[i] = x[i + ((ulong)1 << 40)];
}
