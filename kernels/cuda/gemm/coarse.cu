// GEMMbench's coarsening: each thread computes DI×DJ elements of C, DI consecutive rows
// by DJ consecutive columns, so every element of op(A) it loads is used DJ times and
// every element of op(B) DI times. The DJ columns are read (and C written) in chunks of
// CW = min(DJ, 16 bytes) elements as vectors when VEC_N says rows of B and C are aligned
// to CW (n % CW == 0). With BARRIER the block first copies its WY·DI rows of op(A) for a
// KC-deep chunk of k into shared memory behind __syncthreads(), GEMMbench's barrier
// variant; without it every thread reads op(A) straight from global memory.
//
// Indices past the edge of C are clamped (to row m-1, column n-1, or the last aligned
// chunk), so the inner loop has no branches: such lanes compute with valid elements and
// store nothing.
#define CW (DJ < VEC16 ? DJ : VEC16)
#define VEC_B (VEC_N && !TB)
#define ROWS (WY * DI)

extern "C" __global__ void __launch_bounds__(WX * WY, 1)
    gemm_coarse(const unsigned m, const unsigned n, const unsigned k, const REAL alpha, const REAL* __restrict__ A,
                const REAL* __restrict__ B, const REAL beta, REAL* __restrict__ C) {
  const unsigned i0 = (blockIdx.y * WY + threadIdx.y) * DI, j0 = (blockIdx.x * WX + threadIdx.x) * DJ;
  unsigned jc[DJ];  // clamped columns (chunk starts on the vector path)
#pragma unroll
  for (int e = 0; e < DJ; ++e) jc[e] = VEC_B ? min(j0 + e / CW * CW, n - CW) : min(j0 + e, n - 1);

  REAL acc[DI][DJ];
#pragma unroll
  for (int r = 0; r < DI; ++r)
#pragma unroll
    for (int e = 0; e < DJ; ++e) acc[r][e] = 0;

  // acc += op(A)[ir][p] * op(B)[p][jc]; a[] holds this thread's DI elements of column p of op(A).
  auto step = [&](unsigned p, const REAL (&a)[DI]) {
    REAL b[DJ];
#if VEC_B
#pragma unroll
    for (int e = 0; e < DJ; e += CW) hb_ldv<CW>(&B[p * n + jc[e]], &b[e]);
#else
#pragma unroll
    for (int e = 0; e < DJ; ++e) b[e] = B_AT(p, jc[e]);
#endif
#pragma unroll
    for (int r = 0; r < DI; ++r)
#pragma unroll
      for (int e = 0; e < DJ; ++e) acc[r][e] += a[r] * b[e];
  };

#if BARRIER
  // op(A) chunk, transposed (As[p][row]) so that a thread's DI rows are adjacent; the +1
  // pad spreads the column-wise stores of the TA = 0 copy over the banks.
  __shared__ REAL As[KC][ROWS + 1];
  const unsigned lid = threadIdx.y * WX + threadIdx.x, bi0 = blockIdx.y * ROWS;
  for (unsigned p0 = 0; p0 < k; p0 += KC) {
    // Cooperative copy; the fastest-varying index follows A's stored rows, so that
    // consecutive threads read consecutive addresses in both layouts.
    for (unsigned t = lid; t < ROWS * KC; t += WX * WY) {
#if TA
      const unsigned p = t / ROWS, r = t % ROWS;
#else
      const unsigned r = t / KC, p = t % KC;
#endif
      As[p][r] = (bi0 + r < m && p0 + p < k) ? A_AT(bi0 + r, p0 + p) : (REAL)0;
    }
    __syncthreads();
    const unsigned pend = min((unsigned)KC, k - p0);
    for (unsigned p = 0; p < pend; ++p) {
      REAL a[DI];
#pragma unroll
      for (int r = 0; r < DI; ++r) a[r] = As[p][threadIdx.y * DI + r];
      step(p0 + p, a);
    }
    __syncthreads();  // before the next chunk overwrites As
  }
#else
  unsigned ir[DI];  // clamped rows
#pragma unroll
  for (int r = 0; r < DI; ++r) ir[r] = min(i0 + r, m - 1);
  for (unsigned p = 0; p < k; ++p) {
    REAL a[DI];
#pragma unroll
    for (int r = 0; r < DI; ++r) a[r] = A_AT(ir[r], p);
    step(p, a);
  }
#endif

#pragma unroll
  for (int r = 0; r < DI; ++r) {
    if (i0 + r >= m) break;
    REAL* c = &C_AT(i0 + r, 0);
#if VEC_N
#pragma unroll
    for (int e = 0; e < DJ; e += CW) {
      if (j0 + e >= n) break;  // n % CW == 0: a chunk is wholly inside or outside
      REAL v[CW];
      hb_ldv<CW>(&c[j0 + e], v);
#pragma unroll
      for (int q = 0; q < CW; ++q) v[q] = beta != REAL(0) ? alpha * acc[r][e + q] + beta * v[q] : alpha * acc[r][e + q];
      hb_stv<CW>(&c[j0 + e], v);
    }
#else
#pragma unroll
    for (int e = 0; e < DJ; ++e)
      if (j0 + e < n) c[j0 + e] = beta != REAL(0) ? alpha * acc[r][e] + beta * c[j0 + e] : alpha * acc[r][e];
#endif
  }
}
