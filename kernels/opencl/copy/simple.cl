// One element per work-item.
kernel void copy_simple(const uint n, global const REAL* restrict x, global REAL* restrict y) {
  const uint i = get_global_id(0);
  if (i < n) y[i] = x[i];
}
