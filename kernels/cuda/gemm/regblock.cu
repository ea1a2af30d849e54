// Register-blocked SIMT GEMM, after CUTLASS's SIMT SGEMM and the well-known warp-tiled
// kernels. A block computes a BM×BN tile of C with RB_NT = (BM/WM)(BN/WN)·32 threads;
// each warp a WM×WN tile; each thread TM×TN elements, kept as (TM/V)×(TN/V) sub-tiles
// of V×V where V = VEC16 elements (16 bytes: 4 floats, 2 doubles). The lanes of a warp
// form a WTY×WTX grid (WTY = WM/TM, WTX = WN/TN, WTY·WTX = 32) and lane (ly, lx) owns
// rows s·WTY·V + ly·V + [0, V) and columns t·WTX·V + lx·V + [0, V) of the warp tile.
// op(A) is kept K-major in shared memory (As[p][i]) like op(B) (Bs[p][j]), so each
// sub-tile's V rows or columns are one 128-bit LDS, and the 8 lanes of a quarter warp
// read adjacent 16-byte words: no bank conflicts, the rest broadcasts.
//
// Pipeline, one __syncthreads per BK-deep k-tile: the global loads of tile t+1 go to
// registers before the FMAs of tile t; the last k-step of tile t stores them into the
// other shared buffer, synchronises, and reads the first fragments of tile t+1, while
// fragments are double-buffered in registers so every LDS is one k-step ahead of its use.
//
// Global tiles are copied along the stored rows of the operand (p for A when !TA and B
// when TB, i or j otherwise), so every layout reads whole 32-byte sectors. With VEC_A /
// VEC_B (per-point defines: the leading dimension is a multiple of V) a thread copies
// slots of V elements, one 16-byte load each; otherwise (odd shapes) slots of V scalar
// loads where the stored rows run along i or j, and single elements, the lanes of a warp
// on consecutive addresses, where they run along p (see "The element path" below).
// Tiles along p are stored transposed, by scalar STS, into rows padded by V elements to
// spread them over the banks. Blocks wholly inside C load full k-tiles unpredicated;
// only tiles that cross an edge of op(A) or op(B) take the predicated path, which reads
// zeros outside.
//
// Split-K (SPLITK > 1, for deep k and for grids too small to fill the machine): blockIdx.z
// is a slice of the k-tiles, [z·tiles/SPLITK, (z+1)·tiles/SPLITK), balanced to within one
// tile. Each slice writes its partial tile to `part` (coalesced: register r of every thread
// side by side), then counts itself in done[tile]; the slice that counts last sums the
// SPLITK partials in slice order 0, 1, ... from `part`, whichever slice it is, so a
// configuration gives the same bits every run (the "threadfence reduction" of NVIDIA's CUDA
// samples, with CUTLASS's split-K-parallel order of the sum), applies alpha and beta, and
// resets done[tile] for the next launch. SPLITK = 1 compiles none of this.
#define RB_NT ((BM / WM) * (BN / WN) * 32)
#if HB_PREC_S
#define RB_FMA fmaf
#else
#define RB_FMA fma
#endif

constexpr int kV = VEC16;
constexpr int kWTY = WM / TM, kWTX = WN / TN;
constexpr int kLdA = BM + (TA ? 0 : kV), kLdB = BN + (TB ? kV : 0);  // shared row lengths
constexpr int kSlotsA = BM * BK / kV, kSlotsB = BN * BK / kV;
constexpr int kPerA = (kSlotsA + RB_NT - 1) / RB_NT, kPerB = (kSlotsB + RB_NT - 1) / RB_NT;
constexpr int kStage = BK * (kLdA + kLdB);  // elements of one shared stage
static_assert(kWTY * kWTX == 32, "a warp's lanes must tile its WM×WN tile: (WM/TM)·(WN/TN) == 32");
static_assert(BM % WM == 0 && BN % WN == 0 && TM % kV == 0 && TN % kV == 0 && BK % kV == 0 && BK % 2 == 0,
              "tile sizes must divide");

// V consecutive elements of a stored row starting at src: `in` says the row is inside the
// matrix, pos is the first element's position along the row and end the row's length.
// On the vector path end % V == 0 and pos % V == 0, so a slot is wholly in or out.
template <bool kVec>
__device__ __forceinline__ void rb_slot_edge(const REAL* src, bool in, unsigned pos, unsigned end, REAL* r) {
  if constexpr (kVec) {
    if (in && pos < end) {
      hb_ldv<kV>(src, r);
    } else {
#pragma unroll
      for (int q = 0; q < kV; ++q) r[q] = 0;
    }
  } else {
#pragma unroll
    for (int q = 0; q < kV; ++q) r[q] = (in && pos + q < end) ? src[q] : (REAL)0;
  }
}
template <bool kVec>
__device__ __forceinline__ void rb_slot(const REAL* src, REAL* r) {
  if constexpr (kVec) {
    hb_ldv<kV>(src, r);
  } else {
#pragma unroll
    for (int q = 0; q < kV; ++q) r[q] = src[q];
  }
}
__device__ constexpr bool rb_has(int slots, unsigned s) { return slots % RB_NT == 0 || s < (unsigned)slots; }

// This thread's slots of the k-tile at p0 of op(A) (rows i0..), predicated: for tiles
// that cross an edge of op(A) or op(B).
__device__ __forceinline__ void rb_fetch_edge_a(const REAL* __restrict__ A, unsigned m, unsigned k, unsigned i0,
                                                unsigned p0, unsigned tid, REAL* ra) {
#pragma unroll
  for (int u = 0; u < kPerA; ++u) {
    const unsigned s = tid + u * RB_NT;
    if (rb_has(kSlotsA, s)) {
#if TA  // A is k×m: slots run along i
      const unsigned p = p0 + s / (BM / kV), i = i0 + s % (BM / kV) * kV;
      rb_slot_edge<VEC_A>(A + p * m + i, p < k, i, m, ra + u * kV);
#else  // A is m×k: slots run along p
      const unsigned i = i0 + s / (BK / kV), p = p0 + s % (BK / kV) * kV;
      rb_slot_edge<VEC_A>(A + i * k + p, i < m, p, k, ra + u * kV);
#endif
    }
  }
}
// The same for op(B) (columns j0..).
__device__ __forceinline__ void rb_fetch_edge_b(const REAL* __restrict__ B, unsigned n, unsigned k, unsigned j0,
                                                unsigned p0, unsigned tid, REAL* rb) {
#pragma unroll
  for (int u = 0; u < kPerB; ++u) {
    const unsigned s = tid + u * RB_NT;
    if (rb_has(kSlotsB, s)) {
#if TB  // B is n×k: slots run along p
      const unsigned j = j0 + s / (BK / kV), p = p0 + s % (BK / kV) * kV;
      rb_slot_edge<VEC_B>(B + j * k + p, j < n, p, k, rb + u * kV);
#else  // B is k×n: slots run along j
      const unsigned p = p0 + s / (BN / kV), j = j0 + s % (BN / kV) * kV;
      rb_slot_edge<VEC_B>(B + p * n + j, p < k, j, n, rb + u * kV);
#endif
    }
  }
}

// The same slots, unpredicated, through pointers that follow the k-tiles.
template <bool kVec, int kPer, int kSlots>
__device__ __forceinline__ void rb_fetch_slots(const REAL* const* ptr, unsigned tid, REAL* r) {
#pragma unroll
  for (int u = 0; u < kPer; ++u)
    if (rb_has(kSlots, tid + u * RB_NT)) rb_slot<kVec>(ptr[u], r + u * kV);
}

// The fetched slots into one stage of shared memory, K-major: As[p][i], Bs[p][j].
__device__ __forceinline__ void rb_store_a(REAL* stage, unsigned tid, const REAL* ra) {
  REAL(*As)[kLdA] = reinterpret_cast<REAL(*)[kLdA]>(stage);
#pragma unroll
  for (int u = 0; u < kPerA; ++u) {
    const unsigned s = tid + u * RB_NT;
    if (rb_has(kSlotsA, s)) {
#if TA
      hb_stv<kV>(&As[s / (BM / kV)][s % (BM / kV) * kV], ra + u * kV);
#else
      const unsigned i = s / (BK / kV), p = s % (BK / kV) * kV;
#pragma unroll
      for (int q = 0; q < kV; ++q) As[p + q][i] = ra[u * kV + q];
#endif
    }
  }
}
__device__ __forceinline__ void rb_store_b(REAL* stage, unsigned tid, const REAL* rb) {
  REAL(*Bs)[kLdB] = reinterpret_cast<REAL(*)[kLdB]>(stage + BK * kLdA);
#pragma unroll
  for (int u = 0; u < kPerB; ++u) {
    const unsigned s = tid + u * RB_NT;
    if (rb_has(kSlotsB, s)) {
#if TB
      const unsigned j = s / (BK / kV), p = s % (BK / kV) * kV;
#pragma unroll
      for (int q = 0; q < kV; ++q) Bs[p + q][j] = rb[u * kV + q];
#else
      hb_stv<kV>(&Bs[s / (BN / kV)][s % (BN / kV) * kV], rb + u * kV);
#endif
    }
  }
}

// The element path, for an operand whose leading dimension is not a multiple of V and
// whose stored rows run along p (A when !TA, B when TB; odd shapes). Slots of V scalars
// there made every load instruction of a warp touch V times as many 128-byte lines (with
// BK = 16: 8 stored rows, 4 scattered elements each), and the L1 pipe, which also carries
// every LDS, became the limit. Here element w of a thread is element tid + w·RB_NT of the
// tile in stored order, so a warp reads 32 consecutive elements of a few stored rows;
// the shared stores are scalar either way (transposed). Where the rows run along i or j,
// scalar slots stay: their V elements leave as one 16-byte STS, and the instructions
// saved there outweigh the lines (3001x5003x997 TN: 37.3 TFLOP/s by slots, 36.4 by
// elements). An operand's k-tile is kRows stored rows ("across") of kL contiguous
// elements ("along"); both and RB_NT are powers of two, so one divides the other and the
// split of tid + w·RB_NT below costs no division per element.
template <int kL>
__device__ __forceinline__ unsigned rb_across(unsigned tid, int w) {
  static_assert(RB_NT % kL == 0 || kL % RB_NT == 0, "tile extents and thread counts are powers of two");
  if constexpr (RB_NT % kL == 0)
    return tid / kL + w * (RB_NT / kL);
  else
    return w * RB_NT / kL;
}
template <int kL>
__device__ __forceinline__ unsigned rb_along(unsigned tid, int w) {
  if constexpr (RB_NT % kL == 0)
    return tid % kL;
  else
    return tid + w * RB_NT % kL;
}
template <int kRows, int kL>
__device__ constexpr int rb_elems() {
  return (kRows * kL + RB_NT - 1) / RB_NT;
}
template <int kRows, int kL>
__device__ __forceinline__ bool rb_elem_has(unsigned tid, int w) {
  return (kRows * kL) % RB_NT == 0 || rb_across<kL>(tid, w) < (unsigned)kRows;
}
// tile: the k-tile's first element in memory; ld: the operand's stored row length. The
// edge form reads zeros beyond `rows` stored rows and `len` elements along them.
template <int kRows, int kL>
__device__ __forceinline__ void rb_fetch_elems(const REAL* tile, unsigned ld, unsigned tid, REAL* r) {
#pragma unroll
  for (int w = 0; w < rb_elems<kRows, kL>(); ++w)
    if (rb_elem_has<kRows, kL>(tid, w)) r[w] = tile[rb_across<kL>(tid, w) * ld + rb_along<kL>(tid, w)];
}
template <int kRows, int kL>
__device__ __forceinline__ void rb_fetch_elems_edge(const REAL* tile, unsigned ld, unsigned rows, unsigned len,
                                                    unsigned tid, REAL* r) {
#pragma unroll
  for (int w = 0; w < rb_elems<kRows, kL>(); ++w) {
    const unsigned a = rb_across<kL>(tid, w), b = rb_along<kL>(tid, w);
    if (rb_elem_has<kRows, kL>(tid, w)) r[w] = a < rows && b < len ? tile[a * ld + b] : (REAL)0;
  }
}
// Into shared rows of kLd elements: S[along][across] when the stored rows run along p
// (kAlongP), else S[across][along]; either way K-major, as the slot path stores.
template <int kRows, int kL, int kLd, bool kAlongP>
__device__ __forceinline__ void rb_store_elems(REAL* S, unsigned tid, const REAL* r) {
#pragma unroll
  for (int w = 0; w < rb_elems<kRows, kL>(); ++w) {
    const unsigned a = rb_across<kL>(tid, w), b = rb_along<kL>(tid, w);
    if (rb_elem_has<kRows, kL>(tid, w)) S[kAlongP ? b * kLd + a : a * kLd + b] = r[w];
  }
}
// op(A)'s and op(B)'s k-tiles as stored: A is m×k (rows i along p) or, with TA, k×m.
constexpr int kRowsA = TA ? BK : BM, kLenA = TA ? BM : BK;
constexpr int kRowsB = TB ? BN : BK, kLenB = TB ? BK : BN;
#define RB_ELEM_A (!(VEC_A) && !(TA))
#define RB_ELEM_B (!(VEC_B) && (TB))

// Step p's fragments from one stage: this thread's TM elements of column p of the op(A)
// tile (rows ty..) and TN elements of row p of the op(B) tile (columns tx..).
__device__ __forceinline__ void rb_frag(const REAL* stage, int p, unsigned ty, unsigned tx, REAL* fa, REAL* fb) {
  const REAL* as = stage + p * kLdA + ty;
  const REAL* bs = stage + BK * kLdA + p * kLdB + tx;
#pragma unroll
  for (int s = 0; s < TM / kV; ++s) hb_ldv<kV>(as + s * kWTY * kV, fa + s * kV);
#pragma unroll
  for (int t = 0; t < TN / kV; ++t) hb_ldv<kV>(bs + t * kWTX * kV, fb + t * kV);
}

#if SPLITK > 1
// Split-K: this slice's partial tile out, and for the slice that counts last the sum of all
// slices in order 0..SPLITK-1, read back from `part` (its own too, so that the order, and
// the bits, do not depend on which slice finished last). Returns whether this block is
// that last one, which then writes C.
template <int W>
__device__ __forceinline__ void rb_ldcg(const REAL* p, REAL* r) {
  if constexpr (W == 4) {
    const float4 v = __ldcg(reinterpret_cast<const float4*>(p));
    r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
  } else {
    static_assert(W == 2, "16 bytes: 4 floats or 2 doubles");
    const REAL2 v = __ldcg(reinterpret_cast<const REAL2*>(p));
    r[0] = v.x, r[1] = v.y;
  }
}
__device__ __forceinline__ bool rb_split_sum(REAL* __restrict__ part, unsigned* __restrict__ done, unsigned tile,
                                             unsigned slice, unsigned tid, REAL (&acc)[TM][TN]) {
  constexpr unsigned kTile = RB_NT * TM * TN;  // elements of one partial tile
  __shared__ unsigned last;
  REAL* mine = part + ((size_t)tile * SPLITK + slice) * kTile + tid * kV;
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int t = 0; t < TN / kV; ++t) hb_stv<kV>(mine + (r * (TN / kV) + t) * RB_NT * kV, &acc[r][t * kV]);
  __threadfence();  // the partial is visible device-wide before it is counted
  __syncthreads();
  if (tid == 0) last = atomicAdd(done + tile, 1u) == SPLITK - 1;
  __syncthreads();
  if (!last) return false;
  if (tid == 0) done[tile] = 0;  // ready for the next launch
  const REAL* all = part + (size_t)tile * SPLITK * kTile + tid * kV;
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = 0;
  for (unsigned q = 0; q < SPLITK; ++q)
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
      for (int t = 0; t < TN / kV; ++t) {
        REAL v[kV];
        rb_ldcg<kV>(all + (size_t)q * kTile + (r * (TN / kV) + t) * RB_NT * kV, v);
#pragma unroll
        for (int c = 0; c < kV; ++c) acc[r][t * kV + c] += v[c];
      }
  return true;
}
#endif

extern "C" __global__ void __launch_bounds__(RB_NT, MINB)
    gemm_regblock(const unsigned m, const unsigned n, const unsigned k, const REAL alpha, const REAL* __restrict__ A,
                  const REAL* __restrict__ B, const REAL beta, REAL* __restrict__ C, REAL* __restrict__ part,
                  unsigned* __restrict__ done) {
  // Two stages of As[BK][kLdA], Bs[BK][kLdB], sized at launch (the metadata's local_bytes):
  // BK = 32 with 128×256 tiles passes the 48 KiB of static shared memory.
  extern __shared__ __align__(16) REAL smem[];

  // Grouped launch order: consecutive blocks sweep GROUP block rows column by column, so
  // the blocks resident at one time share panels of A and B in L2.
  const unsigned gn = gridDim.x, pid = blockIdx.y * gn + blockIdx.x;
  const unsigned first = pid / (GROUP * gn) * GROUP, rows = min(gridDim.y - first, (unsigned)GROUP);
  const unsigned in = pid - first * gn;
  const unsigned i0 = (first + in % rows) * BM, j0 = in / rows * BN;

  const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const unsigned ty = warp / (BN / WN) * WM + lane / kWTX * kV;  // first row of the thread in the block tile
  const unsigned tx = warp % (BN / WN) * WN + lane % kWTX * kV;  // first column
  const unsigned tiles = (k + BK - 1) / BK;
#if SPLITK > 1
  const unsigned slice = blockIdx.z;
  const unsigned t_begin = (unsigned)((unsigned long long)tiles * slice / SPLITK);
  const unsigned t_end = (unsigned)((unsigned long long)tiles * (slice + 1) / SPLITK);
#else
  const unsigned t_begin = 0, t_end = tiles;
#endif
  const bool full = i0 + BM <= m && j0 + BN <= n;  // the block's C tile lies inside C
  const unsigned fast = full ? k / BK : 0;          // tiles [0, fast) are fetched unpredicated

  // Slots read unpredicated through pa/pb, which start at k-tile t_begin and advance by one
  // k-tile (steps in elements) after every fetch, whichever path it took; the element
  // path reads from the k-tile's origin ta/tb.
  const unsigned step_a = TA ? BK * m : BK, step_b = TB ? BK : BK * n;
#if !RB_ELEM_A
  const REAL* pa[kPerA];
#pragma unroll
  for (int u = 0; u < kPerA; ++u) {
    const unsigned s = tid + u * RB_NT;
    pa[u] = (TA ? A + s / (BM / kV) * m + i0 + s % (BM / kV) * kV : A + (i0 + s / (BK / kV)) * k + s % (BK / kV) * kV) +
            t_begin * step_a;
  }
#else
  const REAL* ta = (TA ? A + i0 : A + i0 * k) + t_begin * step_a;
#endif
#if !RB_ELEM_B
  const REAL* pb[kPerB];
#pragma unroll
  for (int u = 0; u < kPerB; ++u) {
    const unsigned s = tid + u * RB_NT;
    pb[u] = (TB ? B + (j0 + s / (BK / kV)) * k + s % (BK / kV) * kV : B + s / (BN / kV) * n + j0 + s % (BN / kV) * kV) +
            t_begin * step_b;
  }
#else
  const REAL* tb = (TB ? B + j0 * k : B + j0) + t_begin * step_b;
#endif

  REAL acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = 0;
  // The next k-tile, on its way to shared memory.
  REAL ra[RB_ELEM_A ? rb_elems<kRowsA, kLenA>() : kPerA * kV], rb[RB_ELEM_B ? rb_elems<kRowsB, kLenB>() : kPerB * kV];
  REAL fa[2][TM], fb[2][TN];  // fragments of this k-step and the next

  // Fetches k-tile t into ra/rb and moves the pointers on to tile t+1.
  auto fetch = [&](unsigned t) {
    const unsigned p0 = t * BK;
#if !RB_ELEM_A
    if (t < fast)
      rb_fetch_slots<VEC_A, kPerA, kSlotsA>(pa, tid, ra);
    else
      rb_fetch_edge_a(A, m, k, i0, p0, tid, ra);
#pragma unroll
    for (int u = 0; u < kPerA; ++u) pa[u] += step_a;
#else
    if (t < fast)
      rb_fetch_elems<kRowsA, kLenA>(ta, TA ? m : k, tid, ra);
    else
      rb_fetch_elems_edge<kRowsA, kLenA>(ta, TA ? m : k, TA ? k - p0 : m - i0, TA ? m - i0 : k - p0, tid, ra);
    ta += step_a;
#endif
#if !RB_ELEM_B
    if (t < fast)
      rb_fetch_slots<VEC_B, kPerB, kSlotsB>(pb, tid, rb);
    else
      rb_fetch_edge_b(B, n, k, j0, p0, tid, rb);
#pragma unroll
    for (int u = 0; u < kPerB; ++u) pb[u] += step_b;
#else
    if (t < fast)
      rb_fetch_elems<kRowsB, kLenB>(tb, TB ? k : n, tid, rb);
    else
      rb_fetch_elems_edge<kRowsB, kLenB>(tb, TB ? k : n, TB ? n - j0 : k - p0, TB ? k - p0 : n - j0, tid, rb);
    tb += step_b;
#endif
  };
  // The fetched tile into one stage of shared memory.
  auto store = [&](REAL* stage) {
#if !RB_ELEM_A
    rb_store_a(stage, tid, ra);
#else
    rb_store_elems<kRowsA, kLenA, kLdA, !TA>(stage, tid, ra);
#endif
#if !RB_ELEM_B
    rb_store_b(stage, tid, rb);
#else
    rb_store_elems<kRowsB, kLenB, kLdB, (bool)TB>(stage + BK * kLdA, tid, rb);
#endif
  };

  fetch(t_begin);
  store(smem);
  __syncthreads();
  rb_frag(smem, 0, ty, tx, fa[0], fb[0]);

  unsigned cur = 0;  // offset of the stage being read: 0 or kStage
  for (unsigned t = t_begin; t < t_end; ++t) {
    const bool more = t + 1 < t_end;
    if (more) fetch(t + 1);
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      if (p < BK - 1) {
        rb_frag(smem + cur, p + 1, ty, tx, fa[(p + 1) & 1], fb[(p + 1) & 1]);
      } else {
        // The other stage was last read before the previous barrier, so it may be
        // overwritten now; after this barrier tile t+1 is visible to every thread. On the
        // last tile the fragments read are stale and never used.
        cur ^= kStage;
        if (more) {
          store(smem + cur);
          __syncthreads();
        }
        rb_frag(smem + cur, 0, ty, tx, fa[0], fb[0]);
      }
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = RB_FMA(fa[p & 1][r], fb[p & 1][c], acc[r][c]);
    }
  }
#if SPLITK > 1
  if (!rb_split_sum(part, done, pid, slice, tid, acc)) return;
#endif
  // C = alpha·acc + beta·C; C is not read when beta == 0 (BLAS semantics). With VEC_C
  // (n % V == 0) each sub-tile row is one 16-byte load and store, and wholly in or out.
  const bool beta0 = beta == (REAL)0;
#pragma unroll
  for (int s = 0; s < TM / kV; ++s)
#pragma unroll
    for (int q = 0; q < kV; ++q) {
      const int r = s * kV + q;
      const unsigned i = i0 + ty + s * kWTY * kV + q;
      if (!full && i >= m) continue;
      REAL* crow = C + i * n;
#pragma unroll
      for (int t = 0; t < TN / kV; ++t) {
        const unsigned j = j0 + tx + t * kWTX * kV;
#if VEC_C
        if (full || j < n) {
          REAL v[kV];
          if (beta0) {
#pragma unroll
            for (int c = 0; c < kV; ++c) v[c] = alpha * acc[r][t * kV + c];
          } else {
            hb_ldv<kV>(crow + j, v);
#pragma unroll
            for (int c = 0; c < kV; ++c) v[c] = alpha * acc[r][t * kV + c] + beta * v[c];
          }
          hb_stv<kV>(crow + j, v);
        }
#else
#pragma unroll
        for (int c = 0; c < kV; ++c)
          if (j + c < n) crow[j + c] = alpha * acc[r][t * kV + c] + (beta0 ? (REAL)0 : beta * crow[j + c]);
#endif
      }
    }
}
