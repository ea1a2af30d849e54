// Deliberately wrong: DF/DD dot summing x.hi*y.hi in plain word arithmetic, lo = 0, one
// work-item. Interleaved storage only.
kernel void dot_dw_float(const uint n, global const REAL* x, global const REAL* y, global REAL* result) {
  if (get_global_id(0) != 0) return;
  REAL s = 0;
  for (uint i = 0; i < n; ++i) s += x[2 * i] * y[2 * i];
  result[0] = s;
  result[1] = 0;
}
