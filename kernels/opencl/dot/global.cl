// Seed 000's dot1, made correct: global memory only, each work-item sums a contiguous
// chunk of CHK products (the access pattern that suits CPUs), one partial per work-item.
// VW lanes of independent accumulators (vector loads) break the dependency chain of the
// sum; VW=1 is the seed's scalar loop. CHK is a multiple of VW, so only the last chunk
// has a scalar tail.
kernel void dot_global(const uint n, global const REAL* restrict x, global const REAL* restrict y,
                       global REAL* restrict partial) {
  const uint gid = get_global_id(0);
  const ulong start = (ulong)gid * CHK;
  const ulong end = min((ulong)n, start + CHK);
  realv acc = (realv)(0);
  ulong i = start;
  for (; i + VW <= end; i += VW) acc += LOADV(i / VW, x) * LOADV(i / VW, y);
  REAL s = HSUM(acc);
  for (; i < end; ++i) s += x[i] * y[i];
  partial[gid] = s;
}
