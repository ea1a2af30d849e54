// Seed 000's dot1, made correct: global memory only, each work-item sums a contiguous
// chunk of CHK products (the access pattern that suits CPUs), one partial per work-item.
kernel void dot_global(const uint n, global const REAL* restrict x, global const REAL* restrict y,
                       global REAL* restrict partial) {
  const uint gid = get_global_id(0);
  const ulong start = (ulong)gid * CHK;
  const ulong end = min((ulong)n, start + CHK);
  REAL s = 0;
  for (ulong i = start; i < end; ++i) s += x[i] * y[i];
  partial[gid] = s;
}
