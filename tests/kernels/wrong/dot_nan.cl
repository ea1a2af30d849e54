// Deliberately wrong: produces NaN.
kernel void dot_nan(const uint n, global const REAL* x, global const REAL* y, global REAL* out) {
  REAL s = 0;
  for (uint i = 0; i < n; ++i) s += x[i] * y[i];
  out[0] = s * (REAL)NAN;
}
