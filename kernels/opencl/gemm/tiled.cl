// A BM×BN tile of C per work-group. The k dimension is walked in BK-deep steps: the
// work-group copies a BM×BK tile of op(A) and a BK×BN tile of op(B) into local memory
// (zeros outside the matrices, so any m, n, k works), then each work-item accumulates
// TM×TN elements of C in registers. Work-item (tx, ty) owns rows ty + r·(BM/TM) and
// columns tx + c·(BN/TN): neighbouring work-items touch neighbouring columns, which
// keeps global stores and local reads contiguous.
#define LX (BN / TN)
#define LY (BM / TM)
#define WGS (LX * LY)

kernel void gemm_tiled(const uint m, const uint n, const uint k, const REAL alpha, global const REAL* restrict A,
                       global const REAL* restrict B, const REAL beta, global REAL* restrict C) {
  local REAL As[BK][BM];  // op(A) tile, transposed: As[p][i]
  local REAL Bs[BK][BN];  // op(B) tile: Bs[p][j]
  const uint tx = get_local_id(0), ty = get_local_id(1);
  const uint lid = ty * LX + tx;
  const uint i0 = get_group_id(1) * BM, j0 = get_group_id(0) * BN;

  REAL acc[TM][TN];
  for (uint r = 0; r < TM; ++r)
    for (uint c = 0; c < TN; ++c) acc[r][c] = 0;

  for (uint p0 = 0; p0 < k; p0 += BK) {
    // Cooperative loads; the fastest-varying index follows the stored rows, so that
    // consecutive work-items read consecutive addresses in every layout.
    for (uint t = lid; t < BM * BK; t += WGS) {
#if TA
      const uint p = t / BM, r = t % BM;
#else
      const uint r = t / BK, p = t % BK;
#endif
      const uint i = i0 + r, pp = p0 + p;
      As[p][r] = (i < m && pp < k) ? A_AT(i, pp) : (REAL)0;
    }
    for (uint t = lid; t < BN * BK; t += WGS) {
#if TB
      const uint c = t / BK, p = t % BK;
#else
      const uint p = t / BN, c = t % BN;
#endif
      const uint j = j0 + c, pp = p0 + p;
      Bs[p][c] = (j < n && pp < k) ? B_AT(pp, j) : (REAL)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint p = 0; p < BK; ++p) {
      REAL a[TM], b[TN];
      for (uint r = 0; r < TM; ++r) a[r] = As[p][ty + r * LY];
      for (uint c = 0; c < TN; ++c) b[c] = Bs[p][tx + c * LX];
      for (uint r = 0; r < TM; ++r)
        for (uint c = 0; c < TN; ++c) acc[r][c] += a[r] * b[c];
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next tiles overwrite As and Bs
  }

  for (uint r = 0; r < TM; ++r) {
    const uint i = i0 + ty + r * LY;
    for (uint c = 0; c < TN; ++c) {
      const uint j = j0 + tx + c * LX;
      if (i < m && j < n) C_AT(i, j) = alpha * acc[r][c] + beta * C_AT(i, j);
    }
  }
}
