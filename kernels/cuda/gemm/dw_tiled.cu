// Double-word GEMM, DF or DD (REAL is the word: float or double), after Mukunoki & Imamura's
// DGEMM-DF(DF) and, with binary64 storage (D64), DGEMM-D(DF): C = α·op(A)·op(B) + β·C.
// A BM×BN tile of C per block (Mukunoki & Imamura: 48×48, BK = 16). The block copies BK-deep tiles
// of op(A) and op(B) into shared memory as (hi, lo) pairs, one REAL2 per element, so that
// a thread reads one operand with one LDS.64 (DF) or LDS.128 (DD); thread (tx, ty) keeps
// TM×TN double-word accumulators for rows ty + r·LY and columns tx + c·LX, so that the
// threads of a warp read consecutive pairs of Bs and broadcast As. The next tiles are
// loaded into registers while the current ones are used (and, for D64, converted to
// double-words only when stored, after the arithmetic, so the loads stay in flight).
// Zeros are fetched outside the matrices, so any m, n, k and layout work.
//
// The inner step is the double-word multiply-add of common/dfdd.h (pasted
// before this file), whose __fadd_rn/__fmul_rn/__fmaf_rn never contract: MUL and ADD pick
// Mukunoki & Imamura's DFmul (5 word ops) and DFadd (11) or JMP 2017's Alg. 12 (9) and Alg. 6 (20),
// so a multiply-add costs 16 (MUL=0 ADD=0, Mukunoki & Imamura's), 20, 25 or 29 word operations.
// The storage: AoS (interleaved pairs), SOA (all hi words, then all lo words of the
// matrix) or D64 (binary64, split into DF / widened to DD on load, rounded at the store).
#define LX (BN / TN)
#define LY (BM / TM)
#define NTHR (LX * LY)

typedef hetbench::dw<REAL> hb_dw;

constexpr hetbench::dw_variant kMulV = MUL ? hetbench::dw_variant::accurate : hetbench::dw_variant::sloppy;
constexpr hetbench::dw_variant kAddV = ADD ? hetbench::dw_variant::accurate : hetbench::dw_variant::sloppy;
constexpr int kFetchA = (BM * BK + NTHR - 1) / NTHR, kFetchB = (BN * BK + NTHR - 1) / NTHR;

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

// One stored element as loaded: a double for D64, else already the pair.
#if D64
typedef double gdw_word;
typedef double gdw_raw;
__device__ __forceinline__ hb_dw gdw_cvt(const double d) {
#if HB_PREC_DF
  return hetbench::to_df(d);  // Dekker split (Mukunoki & Imamura's double_to_cudfreal)
#else
  return hetbench::to_dd(d);
#endif
}
#else
typedef REAL gdw_word;
typedef hb_dw gdw_raw;
__device__ __forceinline__ hb_dw gdw_cvt(const hb_dw v) { return v; }
#endif

// Element i of a matrix of `count` elements (count: SoA's offset of the lo words).
__device__ __forceinline__ gdw_raw gdw_fetch(const gdw_word* __restrict__ p, const size_t count, const unsigned i) {
#if D64
  return p[i];
#elif SOA
  return hb_dw{p[i], p[count + i]};
#else
  const REAL2 v = reinterpret_cast<const REAL2*>(p)[i];
  return hb_dw{v.x, v.y};
#endif
}

__device__ __forceinline__ void gdw_store(gdw_word* __restrict__ p, const size_t count, const unsigned i,
                                          const hb_dw v) {
#if D64
  p[i] = hetbench::to_double(v);
#elif SOA
  p[i] = v.hi;
  p[count + i] = v.lo;
#else
  REAL2 w;
  w.x = v.hi;
  w.y = v.lo;
  reinterpret_cast<REAL2*>(p)[i] = w;
#endif
}

__device__ __forceinline__ hb_dw gdw_mul(const hb_dw a, const hb_dw b) { return hetbench::mul<kMulV>(a, b); }
__device__ __forceinline__ hb_dw gdw_add(const hb_dw a, const hb_dw b) { return hetbench::add<kAddV>(a, b); }

// Where element t of a thread block's share of a k-tile lies: x along the tile's kLen rows
// of op(A) (columns of op(B)) and depth p. Consecutive t run along the operand's stored
// rows, which run along p unless kAlongX (A when TA, B when !TB), so the loads coalesce.
template <bool kAlongX, unsigned kLen>
__device__ __forceinline__ void gdw_pos(const unsigned t, unsigned& x, unsigned& p) {
  if constexpr (kAlongX) {
    p = t / kLen;
    x = t % kLen;
  } else {
    x = t / BK;
    p = t % BK;
  }
}

extern "C" __global__ void __launch_bounds__(NTHR, MINB)
    gemm_dw_tiled(const unsigned m, const unsigned n, const unsigned k, const REAL alpha_hi, const REAL alpha_lo,
                  const gdw_word* __restrict__ A, const gdw_word* __restrict__ B, const REAL beta_hi,
                  const REAL beta_lo, gdw_word* __restrict__ C) {
  // One pair of padding per row: the transposing copies (TA = 0 into As, TB = 1 into Bs)
  // write BK rows of one column, which would otherwise fall into one bank.
  __shared__ REAL2 As[BK][BM + 1];  // op(A) tile, transposed: As[p][i]
  __shared__ REAL2 Bs[BK][BN + 1];  // op(B) tile: Bs[p][j]
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const unsigned lid = ty * LX + tx;
  const unsigned i0 = blockIdx.y * BM, j0 = blockIdx.x * BN;
  const size_t cA = (size_t)m * k, cB = (size_t)k * n, cC = (size_t)m * n;

  // This thread's share of the tiles at depth p0, in registers (positions: gdw_pos).
  gdw_raw ra[kFetchA], rb[kFetchB];
  auto fetch = [&](const unsigned p0) {
#pragma unroll
    for (int u = 0; u < kFetchA; ++u) {
      const unsigned t = lid + u * NTHR;
      if ((BM * BK) % NTHR == 0 || t < BM * BK) {
        unsigned r, p;
        gdw_pos<(bool)TA, BM>(t, r, p);
        const unsigned i = i0 + r, pp = p0 + p;
        ra[u] = (i < m && pp < k) ? gdw_fetch(A, cA, A_IDX(i, pp)) : gdw_raw{};
      }
    }
#pragma unroll
    for (int u = 0; u < kFetchB; ++u) {
      const unsigned t = lid + u * NTHR;
      if ((BN * BK) % NTHR == 0 || t < BN * BK) {
        unsigned c, p;
        gdw_pos<!TB, BN>(t, c, p);
        const unsigned j = j0 + c, pp = p0 + p;
        rb[u] = (j < n && pp < k) ? gdw_fetch(B, cB, B_IDX(pp, j)) : gdw_raw{};
      }
    }
  };
  auto stash = [&]() {
#pragma unroll
    for (int u = 0; u < kFetchA; ++u) {
      const unsigned t = lid + u * NTHR;
      if ((BM * BK) % NTHR == 0 || t < BM * BK) {
        unsigned r, p;
        gdw_pos<(bool)TA, BM>(t, r, p);
        const hb_dw v = gdw_cvt(ra[u]);
        As[p][r].x = v.hi;
        As[p][r].y = v.lo;
      }
    }
#pragma unroll
    for (int u = 0; u < kFetchB; ++u) {
      const unsigned t = lid + u * NTHR;
      if ((BN * BK) % NTHR == 0 || t < BN * BK) {
        unsigned c, p;
        gdw_pos<!TB, BN>(t, c, p);
        const hb_dw v = gdw_cvt(rb[u]);
        Bs[p][c].x = v.hi;
        Bs[p][c].y = v.lo;
      }
    }
  };

  hb_dw acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = hb_dw{0, 0};

  fetch(0);
  stash();
  __syncthreads();
  for (unsigned p0 = 0; p0 < k; p0 += BK) {
    const bool more = p0 + BK < k;  // the same in every thread of the block
    if (more) fetch(p0 + BK);
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      hb_dw a[TM], b[TN];
#pragma unroll
      for (int r = 0; r < TM; ++r) {
        const REAL2 v = As[p][ty + r * LY];
        a[r] = hb_dw{v.x, v.y};
      }
#pragma unroll
      for (int c = 0; c < TN; ++c) {
        const REAL2 v = Bs[p][tx + c * LX];
        b[c] = hb_dw{v.x, v.y};
      }
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = gdw_add(gdw_mul(a[r], b[c]), acc[r][c]);
    }
    if (more) {
      __syncthreads();  // every thread is done with the tiles
      stash();
      __syncthreads();
    }
  }

  const hb_dw alpha{alpha_hi, alpha_lo}, beta{beta_hi, beta_lo};
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const unsigned i = i0 + ty + r * LY;
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      const unsigned j = j0 + tx + c * LX;
      if (i < m && j < n) {
        const hb_dw c0 = gdw_cvt(gdw_fetch(C, cC, i * n + j));
        gdw_store(C, cC, i * n + j, gdw_add(gdw_mul(alpha, acc[r][c]), gdw_mul(beta, c0)));
      }
    }
  }
}
