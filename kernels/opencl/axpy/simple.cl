// Seed 000's axpy: one element per work-item, with a bounds check so that any n works.
kernel void axpy_simple(const uint n, const REAL a, global const REAL* restrict x, global const REAL* restrict y,
                        global REAL* restrict r) {
  const uint i = get_global_id(0);
  if (i < n) r[i] = a * x[i] + y[i];
}
