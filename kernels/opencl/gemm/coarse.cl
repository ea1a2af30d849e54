// GEMMbench's coarsening: each work-item computes a DI×DJ block of C, rows i0 .. i0+DI-1
// and DJ consecutive columns j0 .. j0+DJ-1, so one op(B) row segment read as a DJ-vector
// feeds DI rows and one op(A) element feeds DJ columns.
//
// BARRIER = 0: every operand comes straight from global memory (the caches do the reuse).
// BARRIER = 1: the work-group (WX×WY work-items, a (WY·DI)×(WX·DJ) tile of C) first
// stages a KC-deep chunk of its op(A) rows and op(B) columns in local memory, k-major,
// zero-filled outside the matrices, behind a barrier.
//
// Vector paths are chosen per point by the metadata: VEC_B when op(B) rows are stored
// contiguously and n % DJ == 0 (so a work-item's DJ columns are all inside C or all
// outside it), VEC_A when op(A) columns are contiguous (TA) and m % DI == 0.
#define BM (WY * DI)
#define BN (WX * DJ)

#if DJ == 1
typedef REAL realj;
#define LOADJ(p) (*(p))
#define STOREJ(v, p) (*(p) = (v))
#else
typedef HB_CAT(REAL, DJ) realj;
#define LOADJ(p) HB_CAT(vload, DJ)(0, p)
#define STOREJ(v, p) HB_CAT(vstore, DJ)(v, 0, p)
#endif
#if DI == 1
#define COPYI(src, dst) ((dst)[0] = *(src))
#else
#define COPYI(src, dst) HB_CAT(vstore, DI)(HB_CAT(vload, DI)(0, src), 0, dst)
#endif

kernel __attribute__((reqd_work_group_size(WX, WY, 1))) void gemm_coarse(
    const uint m, const uint n, const uint k, const REAL alpha, global const REAL* restrict A,
    global const REAL* restrict B, const REAL beta, global REAL* restrict C) {
  const uint i0 = get_global_id(1) * DI, j0 = get_global_id(0) * DJ;
  realj acc[DI];
  for (uint r = 0; r < DI; ++r) acc[r] = 0;

#if BARRIER
  local REAL As[KC][BM];  // As[p][r] = op(A)[i0' + r][p0 + p], i0' the tile's first row
  local REAL Bs[KC][BN];
  const uint tx = get_local_id(0), ty = get_local_id(1);
  const uint lid = ty * WX + tx;
  const uint ti = get_group_id(1) * BM, tj = get_group_id(0) * BN;
  for (uint p0 = 0; p0 < k; p0 += KC) {
    // The fastest-varying index follows the stored rows: coalesced in every layout.
    for (uint t = lid; t < BM * KC; t += WX * WY) {
#if TA
      const uint p = t / BM, r = t % BM;
#else
      const uint r = t / KC, p = t % KC;
#endif
      As[p][r] = (ti + r < m && p0 + p < k) ? A_AT(ti + r, p0 + p) : (REAL)0;
    }
    for (uint t = lid; t < BN * KC; t += WX * WY) {
#if TB
      const uint c = t / KC, p = t % KC;
#else
      const uint p = t / BN, c = t % BN;
#endif
      Bs[p][c] = (tj + c < n && p0 + p < k) ? B_AT(p0 + p, tj + c) : (REAL)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = 0; p < KC; ++p) {
      const realj b = LOADJ(&Bs[p][tx * DJ]);
      for (uint r = 0; r < DI; ++r) acc[r] += As[p][ty * DI + r] * b;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next chunk overwrites As and Bs
  }
#else
  // Rows and columns past the edge of C read the last row / column instead (valid
  // memory, results discarded at the store), which keeps the k loop free of branches.
  uint ia[DI], jb[DJ];
  for (uint r = 0; r < DI; ++r) ia[r] = min(i0 + r, m - 1);
  for (uint c = 0; c < DJ; ++c) jb[c] = min(j0 + c, n - 1);
  for (uint p = 0; p < k; ++p) {
    REAL a[DI];
#if VEC_A
    COPYI(&A_AT(min(i0, m - DI), p), a);
#else
    for (uint r = 0; r < DI; ++r) a[r] = A_AT(ia[r], p);
#endif
#if VEC_B
    const realj b = LOADJ(&B_AT(p, min(j0, n - DJ)));
#else
    REAL bs[DJ];
    for (uint c = 0; c < DJ; ++c) bs[c] = B_AT(p, jb[c]);
    const realj b = LOADJ(bs);
#endif
    for (uint r = 0; r < DI; ++r) acc[r] += a[r] * b;
  }
#endif

  if (j0 >= n) return;
  for (uint r = 0; r < DI && i0 + r < m; ++r) {
    global REAL* c = &C_AT(i0 + r, j0);
    if (j0 + DJ <= n) {
      if (beta != (REAL)0) STOREJ(alpha * acc[r] + beta * LOADJ(c), c);
      else STOREJ(alpha * acc[r], c);
    } else {
      REAL v[DJ];
      STOREJ(acc[r], v);
      for (uint q = 0; q < n - j0; ++q) c[q] = beta != (REAL)0 ? alpha * v[q] + beta * c[q] : alpha * v[q];
    }
  }
}
