// Double-word GEMM, DF or DD (REAL is the word), after Mukunoki & Imamura's DGEMM-DF(DF) and, with
// binary64 storage (D64), DGEMM-D(DF): the structure of portable/gemm/tiled.k with elements as (hi, lo)
// pairs. A BM×BN tile of C per work-group; BK-deep tiles of op(A) and op(B) in local
// memory as pairs (zeros outside the matrices, so any m, n, k works); work-item (tx, ty)
// keeps TM×TN double-word accumulators for rows ty + r·LY and columns tx + c·LX. The
// arithmetic is common/dfdd.h: MUL and ADD pick Mukunoki & Imamura's DFmul (5 word ops) and
// DFadd (11) or JMP 2017's Alg. 12 (9) and Alg. 6 (20). The CUDA twin,
// kernels/cuda/gemm/dw_tiled.cu, also prefetches the next tiles into registers.
// Storage: interleaved pairs (AoS), SOA (all hi words of the matrix, then all lo words)
// or D64 (binary64, converted to DF / DD on load and rounded to binary64 at the store).
#define LX (BN / TN)
#define LY (BM / TM)
#define WGS (LX * LY)

#if !defined(HB_DW)
#error "dw_tiled.cl needs a double-word precision (DF or DD)"
#endif
typedef REAL2 gdw;
#define GDW_MUL_ACCURATE dw_mul_accurate
#define GDW_MUL_SLOPPY dw_mul_sloppy
#define GDW_ADD_ACCURATE dw_add_accurate
#define GDW_ADD_SLOPPY dw_add_sloppy
#if defined(HB_PREC_DD)
#define GDW_FROM_DOUBLE dw_to_dd
#else
#define GDW_FROM_DOUBLE dw_to_df
#endif
#define GDW_TO_DOUBLE dw_to_double
#if MUL
#define GDW_MUL GDW_MUL_ACCURATE
#else
#define GDW_MUL GDW_MUL_SLOPPY
#endif
#if ADD
#define GDW_ADD GDW_ADD_ACCURATE
#else
#define GDW_ADD GDW_ADD_SLOPPY
#endif

#if D64
#ifndef cl_khr_fp64
#error "storage d64 needs cl_khr_fp64"
#endif
typedef double gdw_word;
#else
typedef REAL gdw_word;
#endif

#if TA
#define A_IDX(i, p) ((p) * m + (i))
#else
#define A_IDX(i, p) ((i) * k + (p))
#endif
#if TB
#define B_IDX(p, j) ((j) * k + (p))
#else
#define B_IDX(p, j) ((p) * n + (j))
#endif

// Element i of a matrix of `count` elements (count: SoA's offset of the lo words).
inline gdw gdw_load(global const gdw_word* restrict p, const ulong count, const uint i) {
#if D64
  return GDW_FROM_DOUBLE(p[i]);
#elif SOA
  return (gdw)(p[i], p[count + i]);
#else
  return vload2(i, p);
#endif
}

inline void gdw_store(global gdw_word* restrict p, const ulong count, const uint i, const gdw v) {
#if D64
  p[i] = GDW_TO_DOUBLE(v);
#elif SOA
  p[i] = v.x;
  p[count + i] = v.y;
#else
  vstore2(v, i, p);
#endif
}

kernel void gemm_dw_tiled(const uint m, const uint n, const uint k, const REAL alpha_hi, const REAL alpha_lo,
                          global const gdw_word* restrict A, global const gdw_word* restrict B, const REAL beta_hi,
                          const REAL beta_lo, global gdw_word* restrict C) {
  local gdw As[BK][BM + 1];  // op(A) tile, transposed: As[p][i]; padded against bank conflicts
  local gdw Bs[BK][BN + 1];  // op(B) tile: Bs[p][j]
  const uint tx = get_local_id(0), ty = get_local_id(1);
  const uint lid = ty * LX + tx;
  const uint i0 = get_group_id(1) * BM, j0 = get_group_id(0) * BN;
  const ulong cA = (ulong)m * k, cB = (ulong)k * n, cC = (ulong)m * n;

  gdw acc[TM][TN];
  for (uint r = 0; r < TM; ++r)
    for (uint c = 0; c < TN; ++c) acc[r][c] = (gdw)(0, 0);

  for (uint p0 = 0; p0 < k; p0 += BK) {
    // Consecutive work-items take consecutive elements of a stored row in every layout.
    for (uint t = lid; t < BM * BK; t += WGS) {
#if TA
      const uint p = t / BM, r = t % BM;
#else
      const uint r = t / BK, p = t % BK;
#endif
      const uint i = i0 + r, pp = p0 + p;
      As[p][r] = (i < m && pp < k) ? gdw_load(A, cA, A_IDX(i, pp)) : (gdw)(0, 0);
    }
    for (uint t = lid; t < BN * BK; t += WGS) {
#if TB
      const uint c = t / BK, p = t % BK;
#else
      const uint p = t / BN, c = t % BN;
#endif
      const uint j = j0 + c, pp = p0 + p;
      Bs[p][c] = (j < n && pp < k) ? gdw_load(B, cB, B_IDX(pp, j)) : (gdw)(0, 0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint p = 0; p < BK; ++p) {
      gdw a[TM], b[TN];
      for (uint r = 0; r < TM; ++r) a[r] = As[p][ty + r * LY];
      for (uint c = 0; c < TN; ++c) b[c] = Bs[p][tx + c * LX];
      for (uint r = 0; r < TM; ++r)
        for (uint c = 0; c < TN; ++c) acc[r][c] = GDW_ADD(GDW_MUL(a[r], b[c]), acc[r][c]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next tiles overwrite As and Bs
  }

  const gdw alpha = (gdw)(alpha_hi, alpha_lo), beta = (gdw)(beta_hi, beta_lo);
  for (uint r = 0; r < TM; ++r) {
    const uint i = i0 + ty + r * LY;
    for (uint c = 0; c < TN; ++c) {
      const uint j = j0 + tx + c * LX;
      if (i < m && j < n)
        gdw_store(C, cC, i * n + j, GDW_ADD(GDW_MUL(alpha, acc[r][c]), GDW_MUL(beta, gdw_load(C, cC, i * n + j))));
    }
  }
}
