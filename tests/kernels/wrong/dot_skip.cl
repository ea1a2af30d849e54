// Deliberately wrong: element 0 is left out of the sum.
kernel void dot_skip(const uint n, global const REAL* x, global const REAL* y, global REAL* out) {
  if (get_global_id(0) != 0) return;
  REAL s = 0;
  for (uint i = 1; i < n; ++i) s += x[i] * y[i];
  out[0] = s;
}
