// Deliberately wrong: the last element is never written.
kernel void axpy_skip(const uint n, const REAL a, global const REAL* x, global const REAL* y, global REAL* r) {
  const uint i = get_global_id(0);
  if (i + 1 < n) r[i] = a * x[i] + y[i];
}
