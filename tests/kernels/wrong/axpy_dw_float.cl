// Deliberately wrong: DF/DD axpy in plain word arithmetic on the hi words, lo = 0
// (double-word storage, single-word accuracy). Interleaved storage only.
kernel void axpy_dw_float(const uint n, const REAL a, global const REAL* x, global const REAL* y, global REAL* r) {
  const uint i = get_global_id(0);
  if (i < n) vstore2((REAL2)(a * x[2 * i] + y[2 * i], 0), i, r);
}
