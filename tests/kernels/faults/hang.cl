// Planted fault: never returns. The loop reads x through a volatile pointer, so the
// compiler may not assume it ends; x holds seeded finite numbers, so v[0] == v[0].
kernel void hang(const uint n, global const REAL* x, global REAL* y) {
  volatile global const REAL* v = x;
  while (v[0] == v[0]) {
  }
  const uint i = get_global_id(0);
  if (i < n) y[i] = x[i];
}
