// Planted fault: does not build (an undeclared identifier).
kernel void broken(const uint n, global const REAL* x, global REAL* y) {
  const uint i = get_global_id(0);
  if (i < n) y[i] = x[i] + not_declared_anywhere;
}
