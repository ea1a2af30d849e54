// Register-blocked GEMM in the style of CLBlast's Xgemm and CUTLASS's SIMT kernels.
//
// A work-group computes a BM×BN tile of C; the LX×LY work-items (LX = BN/TN, LY = BM/TM)
// hold TM×TN elements each in registers. op(A) and op(B) go through local memory in
// BK-deep tiles, both stored k-major (As[p][i], Bs[p][j]) so that a work-item reads its
// A and B fragments as 4-vectors (one 128-bit local load each in S). The local tiles are double-buffered
// and the next tile is fetched from global memory into registers while the current one
// is multiplied, so one barrier per k-tile suffices and the global latency is hidden
// behind BK·TM·TN multiply-adds.
//
// Work-item (tx, ty) owns rows 4·(ty + s·LY) + q (s < TM/4, q < 4) and columns
// 4·(tx + s·LX) + q: 4-wide sub-tiles 4·LY rows (4·LX columns) apart. Within a warp the
// B fragments of neighbouring tx are consecutive 16-byte words and the A fragments are
// broadcasts, so fragment reads are free of bank conflicts, and the LX work-items of a
// row store 4·LX consecutive elements of C.
//
// Edges: elements outside op(A) and op(B) are fetched as zeros and C is stored under
// guards, so any m, n, k >= 1 works. Only work-groups that touch an edge of C, and the
// last k-tile when BK does not divide k, take the guarded scalar path; the rest use
// unpredicated 4-vector loads when the leading dimension allows (VEC_A, VEC_B, VEC_C
// from the metadata: rows of 4-vectors are then 16-byte aligned).
//
// Split-K (SPLITK > 1: deep k, grids smaller than the device): group z is a slice of the
// k-tiles, [z·tiles/SPLITK, (z+1)·tiles/SPLITK), balanced to within one tile. A slice
// writes its unscaled partial C to `part` (slice z at z·m·n, row-major like C) and
// gemm_regblock_sum, a second launch, adds the SPLITK partials of each element in slice
// order and applies α and β. Two launches rather than the CUDA kernel's last-slice
// reduction: OpenCL 1.2 has no device-scope release fence, and the order, hence the
// result, stays fixed per configuration either way.
#define LX (BN / TN)
#define LY (BM / TM)
#define WGS (LX * LY)
#define VA (BM * BK / 4)  // 4-vectors in a k-tile of op(A)
#define VB (BN * BK / 4)
#define NA ((VA + WGS - 1) / WGS)  // 4-vectors of op(A) per work-item and k-tile
#define NB ((VB + WGS - 1) / WGS)
// Whether 4-vector s of a work-item exists (only the last one can be missing).
#define HAS_A(s) (VA % WGS == 0 || lid + (s) * WGS < VA)
#define HAS_B(s) (VB % WGS == 0 || lid + (s) * WGS < VB)
// A tile that is transposed on its way into local memory (op(A) not stored k-major, or
// op(B) stored n-major) is written as 4 scalar stores per 4-vector; 4 elements of row
// padding spread work-items that share a row over more banks and keep rows 16-byte
// aligned.
#if TA
#define LDA BM
#else
#define LDA (BM + 4)
#endif
#if TB
#define LDB (BN + 4)
#else
#define LDB BN
#endif

// Elements c..c+3 of row r of a stored rows×cols matrix M (row-major), zeros outside:
// 4 consecutive elements in memory, one 4-vector load when `fast`.
REAL4 fetch_row4(global const REAL* restrict M, const uint rows, const uint cols, const uint r, const uint c,
                 const bool fast) {
  if (fast) return *(global const REAL4*)(M + r * cols + c);
  const bool in = r < rows;
  REAL4 v;
  v.x = (in && c + 0 < cols) ? M[r * cols + c + 0] : (REAL)0;
  v.y = (in && c + 1 < cols) ? M[r * cols + c + 1] : (REAL)0;
  v.z = (in && c + 2 < cols) ? M[r * cols + c + 2] : (REAL)0;
  v.w = (in && c + 3 < cols) ? M[r * cols + c + 3] : (REAL)0;
  return v;
}

// op(A)[i..i+3][p] when A is stored k-major (TA: k×m), else op(A)[i][p..p+3].
REAL4 fetch_a(global const REAL* restrict A, const uint m, const uint k, const uint i, const uint p, const bool fast) {
#if TA
  return fetch_row4(A, k, m, p, i, fast);
#else
  return fetch_row4(A, m, k, i, p, fast);
#endif
}

// op(B)[p][j..j+3] when B is stored k-major (!TB: k×n), else op(B)[p..p+3][j].
REAL4 fetch_b(global const REAL* restrict B, const uint n, const uint k, const uint p, const uint j, const bool fast) {
#if TB
  return fetch_row4(B, n, k, j, p, fast);
#else
  return fetch_row4(B, k, n, p, j, fast);
#endif
}

// Tile coordinates (x along m or n, p along k) of the 4-vector v of a k-tile. Consecutive
// work-items take consecutive 4-vectors of the stored rows, so every fetch is coalesced.
#if TA
#define A_POS(v, x, p) const uint x = ((v) % (BM / 4)) * 4, p = (v) / (BM / 4)
#else
#define A_POS(v, x, p) const uint x = (v) / (BK / 4), p = ((v) % (BK / 4)) * 4
#endif
#if TB
#define B_POS(v, x, p) const uint x = (v) / (BK / 4), p = ((v) % (BK / 4)) * 4
#else
#define B_POS(v, x, p) const uint x = ((v) % (BN / 4)) * 4, p = (v) / (BN / 4)
#endif

// Store the 4-vector val of tile position (x, p) k-major: one vector store when its
// elements lie along x, four scalar stores (the transpose) when they lie along p.
void stash(local REAL* t, const uint ld, const uint x, const uint p, const REAL4 val, const bool along_x) {
  if (along_x) {
    *(local REAL4*)(t + p * ld + x) = val;
  } else {
    t[(p + 0) * ld + x] = val.x;
    t[(p + 1) * ld + x] = val.y;
    t[(p + 2) * ld + x] = val.z;
    t[(p + 3) * ld + x] = val.w;
  }
}

kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void gemm_regblock(
    const uint m, const uint n, const uint k, const REAL alpha, global const REAL* restrict A,
    global const REAL* restrict B, const REAL beta, global REAL* restrict C, global REAL* restrict part) {
  // REAL4 arrays: 16-byte aligned, so fragment reads and k-major tile stores are vectors.
  local REAL4 As[2 * BK * LDA / 4];
  local REAL4 Bs[2 * BK * LDB / 4];
  const uint tx = get_local_id(0), ty = get_local_id(1);
  const uint lid = ty * LX + tx;
  const uint i0 = get_group_id(1) * BM, j0 = get_group_id(0) * BN;
  const bool inner = i0 + BM <= m && j0 + BN <= n;

  REAL acc[TM][TN];
#pragma unroll
  for (uint r = 0; r < TM; ++r)
#pragma unroll
    for (uint c = 0; c < TN; ++c) acc[r][c] = 0;

  // ra, rb hold the next k-tile: its global loads are issued before the multiply-adds of
  // the current one and only consumed (stored to local memory) after them.
  REAL4 ra[NA], rb[NB];
  const uint tiles = (k + BK - 1) / BK;
#if SPLITK > 1
  const uint slice = get_group_id(2);
  const uint t_begin = (uint)((ulong)tiles * slice / SPLITK), t_end = (uint)((ulong)tiles * (slice + 1) / SPLITK);
#else
  const uint t_begin = 0, t_end = tiles;
#endif
  bool full = inner && (t_begin + 1) * BK <= k;  // no guards needed: vector loads where aligned
#pragma unroll
  for (uint s = 0; s < NA; ++s) {
    A_POS(lid + s * WGS, x, p);
    if (HAS_A(s)) ra[s] = fetch_a(A, m, k, i0 + x, t_begin * BK + p, VEC_A && full);
  }
#pragma unroll
  for (uint s = 0; s < NB; ++s) {
    B_POS(lid + s * WGS, x, p);
    if (HAS_B(s)) rb[s] = fetch_b(B, n, k, t_begin * BK + p, j0 + x, VEC_B && full);
  }

  for (uint t = t_begin; t < t_end; ++t) {
    // Buffer t & 1 was last read in iteration t - 2, before the barrier of iteration
    // t - 1, so one barrier per k-tile separates every write from every read.
    local REAL* as = (local REAL*)As + (t & 1) * (BK * LDA);
    local REAL* bs = (local REAL*)Bs + (t & 1) * (BK * LDB);
#pragma unroll
    for (uint s = 0; s < NA; ++s) {
      A_POS(lid + s * WGS, x, p);
      if (HAS_A(s)) stash(as, LDA, x, p, ra[s], TA);
    }
#pragma unroll
    for (uint s = 0; s < NB; ++s) {
      B_POS(lid + s * WGS, x, p);
      if (HAS_B(s)) stash(bs, LDB, x, p, rb[s], !TB);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (t + 1 < t_end) {
      const uint p0 = (t + 1) * BK;
      full = inner && p0 + BK <= k;
#pragma unroll
      for (uint s = 0; s < NA; ++s) {
        A_POS(lid + s * WGS, x, p);
        if (HAS_A(s)) ra[s] = fetch_a(A, m, k, i0 + x, p0 + p, VEC_A && full);
      }
#pragma unroll
      for (uint s = 0; s < NB; ++s) {
        B_POS(lid + s * WGS, x, p);
        if (HAS_B(s)) rb[s] = fetch_b(B, n, k, p0 + p, j0 + x, VEC_B && full);
      }
    }

    const local REAL4* as4 = (const local REAL4*)as;
    const local REAL4* bs4 = (const local REAL4*)bs;
#pragma unroll
    for (uint p = 0; p < BK; ++p) {
      REAL a[TM], b[TN];
#pragma unroll
      for (uint s = 0; s < TM / 4; ++s) {
        const REAL4 v = as4[p * (LDA / 4) + ty + s * LY];
        a[4 * s + 0] = v.x, a[4 * s + 1] = v.y, a[4 * s + 2] = v.z, a[4 * s + 3] = v.w;
      }
#pragma unroll
      for (uint s = 0; s < TN / 4; ++s) {
        const REAL4 v = bs4[p * (LDB / 4) + tx + s * LX];
        b[4 * s + 0] = v.x, b[4 * s + 1] = v.y, b[4 * s + 2] = v.z, b[4 * s + 3] = v.w;
      }
#pragma unroll
      for (uint r = 0; r < TM; ++r)
#pragma unroll
        for (uint c = 0; c < TN; ++c) acc[r][c] += a[r] * b[c];
    }
  }

  // The tile out: with split-K this slice's partial, unscaled, into `part` (α and β are
  // applied once, by the sum pass); otherwise α·acc + β·C into C. BLAS convention: with
  // beta = 0, C is not read (it may hold NaN).
#if SPLITK > 1
  global REAL* dst = part + (ulong)slice * m * n;
  const REAL scale = (REAL)1;
  const bool use_c = false;
#else
  global REAL* dst = C;
  const REAL scale = alpha;
  const bool use_c = beta != (REAL)0;
#endif
#pragma unroll
  for (uint s = 0; s < TM / 4; ++s)
#pragma unroll
    for (uint q = 0; q < 4; ++q) {
      const uint r = 4 * s + q, i = i0 + 4 * (ty + s * LY) + q;
#pragma unroll
      for (uint u = 0; u < TN / 4; ++u) {
        const uint j = j0 + 4 * (tx + u * LX);
        REAL4 v = scale * (REAL4)(acc[r][4 * u], acc[r][4 * u + 1], acc[r][4 * u + 2], acc[r][4 * u + 3]);
        if (VEC_C && inner) {
          global REAL4* c4 = (global REAL4*)(dst + i * n + j);
          if (use_c) v += beta * *c4;
          *c4 = v;
        } else if (i < m) {
          // Scalar tail; j + w < n also keeps the read of C in bounds.
          if (j + 0 < n) dst[i * n + j + 0] = use_c ? v.x + beta * dst[i * n + j + 0] : v.x;
          if (j + 1 < n) dst[i * n + j + 1] = use_c ? v.y + beta * dst[i * n + j + 1] : v.y;
          if (j + 2 < n) dst[i * n + j + 2] = use_c ? v.z + beta * dst[i * n + j + 2] : v.z;
          if (j + 3 < n) dst[i * n + j + 3] = use_c ? v.w + beta * dst[i * n + j + 3] : v.w;
        }
      }
    }
}

// Split-K's second pass: element e of C is α times the sum of its SPLITK partials, added
// in slice order 0, 1, ..., plus β·C (C not read when β = 0). Consecutive work-items take
// consecutive elements, so every read of a slice is coalesced.
kernel void gemm_regblock_sum(const uint m, const uint n, const REAL alpha, const REAL beta, global REAL* restrict C,
                              global const REAL* restrict part) {
  const uint e = get_global_id(0);
  if (e >= m * n) return;
  const ulong mn = (ulong)m * n;
  REAL sum = part[e];
  for (uint q = 1; q < SPLITK; ++q) sum += part[q * mn + e];
  C[e] = beta != (REAL)0 ? alpha * sum + beta * C[e] : alpha * sum;
}
