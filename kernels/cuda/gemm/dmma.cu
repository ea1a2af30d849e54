// DGEMM on the FP64 tensor cores (DMMA) through mma.sync. A block computes a BM×BN tile of
// C; its warps each own a WM×WN sub-tile, held in registers as 8×8 accumulator blocks.
// BK-deep tiles of op(A) and op(B) stream into shared memory through cp.async, STAGES
// tiles deep, so the copies of the next tiles overlap the arithmetic on this one.
//
// Fragments (PTX ISA, mma .f64; lane = 4·g + t): for every shape below, lane (g, t) holds
// A at row g (+8) and column t (+4, +8, +12), B at column g and row t (+4 ...), and C at
// row g (+8) and columns 2t, 2t+1. The larger shapes are grids of m8n8k4 fragments, so one
// register layout serves all: af[i][q] is op(A)[8i + g][4q + t] of the warp tile, bf[j][q]
// is op(B)[4q + t][8j + g], and acc[i][j][v] is C[8i + g][8j + 2t + v].
//
// Shared tiles keep the stored orientation of each operand (the contiguous dimension of
// global memory stays contiguous), so 16-byte copies work for every layout. Their
// columns are XOR-swizzled in groups of 4 doubles by row: a fragment load touches 4 rows
// × 4 consecutive columns per half-warp, which the swizzle spreads over all 16 8-byte
// bank pairs in every orientation; no padding. The stages live in shared memory sized at
// launch (the metadata's local_bytes), so that deep tiles and pipelines may pass the
// 48 KiB of static shared memory.
//
// The main loop follows CUTLASS's multistage pipeline (Kerr et al., "CUTLASS: Fast Linear
// Algebra in CUDA C++"): the next k-step's fragments are read from shared memory while
// this one's instructions run, and every address the loop uses is a register plus a
// constant. On the H200 the tensor cores are fed only if the loop issues few other
// instructions: an earlier version of this kernel, which read all fragments and then
// multiplied, and kept a register for every copy's address, issued 12 SASS instructions
// per DMMA and reached 0.86 × cuBLAS at 4096; this one issues about 7, NOPs included,
// and reaches 0.94-1.04 (docs/performance.md).
//
// Split-K (SPLITK > 1) as in regblock.cu: blockIdx.z takes k-tiles
// [z·ktiles/SPLITK, (z+1)·ktiles/SPLITK); the slice that finishes last sums the partial
// tiles in slice order 0, 1, ... (the same bits every run) and writes C.
#ifndef HB_PREC_D
#error "gemm/dmma is an FP64 kernel"
#endif

#if SHAPE == 884
#define DMMA_IM 8  // rows of one instruction
#define DMMA_IK 4  // depth of one instruction
#elif SHAPE == 1684
#define DMMA_IM 16
#define DMMA_IK 4
#elif SHAPE == 1688
#define DMMA_IM 16
#define DMMA_IK 8
#elif SHAPE == 16816
#define DMMA_IM 16
#define DMMA_IK 16
#else
#error "SHAPE must be 884, 1684, 1688 or 16816"
#endif
#if SHAPE != 884 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#error "the m16n8 FP64 shapes need sm_90"
#endif

#define DMMA_THREADS ((BM / WM) * (BN / WN) * 32)
#define DMMA_MI (WM / 8)         // 8-row fragment blocks per warp
#define DMMA_NJ (WN / 8)         // 8-column fragment blocks per warp
#define DMMA_KQ (DMMA_IK / 4)    // 4-deep fragment slices per instruction
#define DMMA_RG (DMMA_IM / 8)    // fragment blocks in one instruction's rows
#define DMMA_KS (BK / DMMA_IK)   // instruction k-steps per shared tile

static_assert(BM % WM == 0 && BN % WN == 0 && WM % DMMA_IM == 0 && WN % 8 == 0, "warp tiling");
static_assert(BK % DMMA_IK == 0 && BK % 8 == 0 && BM % 16 == 0 && BN % 16 == 0, "tile shape");
static_assert(STAGES >= 2, "the pipeline needs two stages");

// Offset of element (r, c) in a tile of COLS contiguous doubles per row.
template <int COLS>
__device__ __forceinline__ unsigned dmma_swz(unsigned r, unsigned c) {
  return r * COLS + (c ^ (COLS >= 16 ? (r & 3) << 2 : (r & 2) << 1));
}

// The copier's bounds mask: one bit per chunk a thread copies, 64 when more than 32.
template <bool WIDE>
struct dmma_mask {
  using type = unsigned;
};
template <>
struct dmma_mask<true> {
  using type = unsigned long long;
};

// Copies one operand's tiles into shared memory, tile after tile: a ROWS × COLS tile of a
// row-major matrix (nrows × ncols, leading dimension ld), VEC doubles a copy (VEC = 2 needs
// ld and ncols even, so that a pair is wholly inside or wholly outside). KROWS: the tile's
// rows run along k, else its columns do; each copy moves the tile BK along k. Each thread
// keeps its place in the tile and a pointer to its first chunk (CUTLASS's predicated tile
// iterator), so a chunk costs a pointer add, a bounds bit and a store address. What lies
// outside the matrix is zero-filled (src-size 0 reads nothing).
template <int ROWS, int COLS, int VEC, bool KROWS>
struct dmma_copier {
  static constexpr unsigned PER_ROW = COLS / VEC, CHUNKS = ROWS * PER_ROW;
  // A thread's chunks: CPT per row (rows wider than the block), a row every RPS rows.
  static constexpr unsigned CPT = PER_ROW > DMMA_THREADS ? PER_ROW / DMMA_THREADS : 1;
  static constexpr unsigned RPS = PER_ROW > DMMA_THREADS ? 1 : DMMA_THREADS / PER_ROW;
  static constexpr unsigned STEPS = (CHUNKS + DMMA_THREADS - 1) / DMMA_THREADS;
  static_assert(PER_ROW % DMMA_THREADS == 0 || DMMA_THREADS % PER_ROW == 0, "power-of-two tiles");
  using mask = typename dmma_mask<(STEPS > 32)>::type;
  static_assert(STEPS <= 64, "one bit a chunk");
  // Rows 4 apart share a swizzle key, so a chunk's place in the stage is one of NB
  // per-thread offsets plus a constant: the compiler would otherwise keep one register for
  // each chunk's offset across the k-loop (24 with 8-byte copies), and spill.
  static constexpr unsigned NB = RPS % 4 == 0 ? 1 : 4 / RPS;
  const double* ptr;  // this thread's first chunk of the next tile
  unsigned ld, r0, c0;
  unsigned dst[NB];  // bytes: offsets of the chunks at rows r0, r0 + RPS, ... r0 + (NB - 1) RPS
  mask inside;       // bit s: chunk s lies inside the matrix across k (its row, or for KROWS its column)

  __device__ __forceinline__ static unsigned row(unsigned r0, unsigned s) { return r0 + s / CPT * RPS; }
  __device__ __forceinline__ static unsigned col(unsigned c0, unsigned s) {
    return c0 + s % CPT * DMMA_THREADS * VEC;
  }

  __device__ __forceinline__ dmma_copier(const double* g, unsigned ld_, unsigned row0, unsigned col0,
                                         unsigned nrows, unsigned ncols, unsigned tid)
      : ld(ld_), r0(tid / PER_ROW), c0(tid % PER_ROW * VEC), inside(0) {
    ptr = g + (size_t)(row0 + r0) * ld + col0 + c0;
#pragma unroll
    for (unsigned b = 0; b < NB; ++b) dst[b] = dmma_swz<COLS>(r0 + b * RPS, c0) * sizeof(double);
#pragma unroll
    for (unsigned s = 0; s < STEPS; ++s)
      if (KROWS ? col0 + col(c0, s) < ncols : row0 + row(r0, s) < nrows) inside |= mask(1) << s;
  }

  // Copies the tile whose k starts at p0 (of kdim) into the stage at shared address sm,
  // and moves to the next.
  __device__ __forceinline__ void copy(unsigned sm, unsigned p0, unsigned kdim) {
    size_t step = (size_t)RPS * ld;
    // Opaque each tile: otherwise the compiler keeps every chunk's 64-bit address in
    // registers across the loop, and the fragments' second buffer spills.
    asm volatile("mov.b64 %0, %0;\n" : "+l"(step));
    const unsigned kres = kdim - p0;  // k left, from this tile on
    const double* p = ptr;
#pragma unroll
    for (unsigned s = 0; s < STEPS; ++s) {
      const unsigned rs = s / CPT, r = row(r0, s), c = col(c0, s);
      if (CHUNKS % DMMA_THREADS == 0 || r < ROWS) {
        const bool in = (inside >> s & 1) && (KROWS ? r < kres : c < kres);
        const unsigned d = sm + dst[rs % NB] + (rs / NB * NB * RPS * COLS + s % CPT * DMMA_THREADS * VEC) * 8;
        const double* src = p + s % CPT * DMMA_THREADS * VEC;
        if (VEC == 2)
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(in ? 16 : 0));
        else
          asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(d), "l"(src), "r"(in ? 8 : 0));
      }
      if (s % CPT == CPT - 1) p += step;
    }
    ptr += KROWS ? (size_t)BK * ld : BK;
  }
};

// Fragment addressing. Each thread's elements lie at a few per-thread bases plus constants,
// so that every shared load of the main loop is one register plus an immediate. The
// swizzle XORs bits 2-3 of the column, which the block index reaches through bit 3 of 8i
// (k-row tiles) and the k index through its bits 2-3 (k-contiguous tiles); hence up to four
// bases per operand:
//   k-row tile (BK × W), element (p, w0 + 8i + g), p = ks + 4q + t: p & 3 = t, so it is at
//     base[i & 1] = t W + ((w0 + 8 (i & 1) + g) ^ 4t), plus (ks + 4q) W + 16 (i >> 1);
//   k-contiguous tile (W × BK), element (w0 + 8i + g, c), c = ks + 4q + t: the key is
//     4 (g & 3) (BK = 8: 4 (g >> 1 & 1), on bit 2 only), so with x = c >> 2 & 3 it is at
//     base[x] = (w0 + g) BK + t + 4 ((x & 1) ^ (g & 1)) + 8 ((x >> 1) ^ (g >> 1 & 1)),
//     plus 8i BK + (c & ~15).
template <int W, bool KROWS>
__device__ __forceinline__ void dmma_bases(unsigned (&o)[4], unsigned w0, unsigned g, unsigned t) {
#pragma unroll
  for (unsigned x = 0; x < 4; ++x) {
    if (KROWS)
      o[x] = t * W + ((w0 + 8 * (x & 1) + g) ^ (4 * t));
    else
      o[x] = (w0 + g) * BK + t +
             (BK >= 16 ? 4 * ((x & 1) ^ (g & 1)) + 8 * ((x >> 1) ^ (g >> 1 & 1)) : 4 * ((x & 1) ^ (g >> 1 & 1)));
    o[x] *= sizeof(double);
  }
}

// A shared load through a 32-bit shared-window address. NVRTC (unlike nvcc) keeps generic
// 64-bit addresses for loads from the extern shared array: a register pair per address,
// 24 more registers at the default tiling, and a slower loop. Volatile, so that no load
// moves across the barrier that publishes its stage.
__device__ __forceinline__ double dmma_lds(unsigned addr) {
  double v;
  asm volatile("ld.shared.f64 %0, [%1];\n" : "=d"(v) : "r"(addr));
  return v;
}

// Element (block i, slice q) of the fragment at k-step ks of the stage at shared address s;
// the bases are in bytes.
template <int W, bool KROWS>
__device__ __forceinline__ double dmma_frag(unsigned s, const unsigned (&o)[4], unsigned i, unsigned q, unsigned ks) {
  if (KROWS) return dmma_lds(s + o[i & 1] + 8 * ((ks + 4 * q) * W + 16 * (i >> 1)));
  const unsigned c = ks + 4 * q;
  return dmma_lds(s + o[c >> 2 & 3] + 8 * (8 * i * BK + (c & ~15u)));
}

// A's fragments of one instruction's rows (blocks i .. i + DMMA_RG - 1) at k-step ks.
__device__ __forceinline__ void dmma_frag_a(double (&af)[DMMA_MI][DMMA_KQ], unsigned i, unsigned as,
                                            const unsigned (&o)[4], unsigned ks) {
#pragma unroll
  for (unsigned ii = i; ii < i + DMMA_RG; ++ii)
#pragma unroll
    for (unsigned q = 0; q < DMMA_KQ; ++q) af[ii][q] = dmma_frag<BM, TA>(as, o, ii, q, ks);
}

// B's fragments, all block-columns, at k-step ks.
__device__ __forceinline__ void dmma_frag_b(double (&bf)[DMMA_NJ][DMMA_KQ], unsigned bs, const unsigned (&o)[4],
                                            unsigned ks) {
#pragma unroll
  for (unsigned j = 0; j < DMMA_NJ; ++j)
#pragma unroll
    for (unsigned q = 0; q < DMMA_KQ; ++q) bf[j][q] = dmma_frag<BN, !TB>(bs, o, j, q, ks);
}

// acc[i .. i + DMMA_RG - 1][j] += A's rows i × B block j over one instruction's depth, for every j.
__device__ __forceinline__ void dmma_mma_rows(double (&acc)[DMMA_MI][DMMA_NJ][2], const double (&af)[DMMA_MI][DMMA_KQ],
                                              const double (&bf)[DMMA_NJ][DMMA_KQ], unsigned i) {
#pragma unroll
  for (int j = 0; j < DMMA_NJ; ++j) {
#if SHAPE == 884
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(acc[i][j][0]), "+d"(acc[i][j][1])
                 : "d"(af[i][0]), "d"(bf[j][0]));
#elif SHAPE == 1684
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
                 : "+d"(acc[i][j][0]), "+d"(acc[i][j][1]), "+d"(acc[i + 1][j][0]), "+d"(acc[i + 1][j][1])
                 : "d"(af[i][0]), "d"(af[i + 1][0]), "d"(bf[j][0]));
#elif SHAPE == 1688
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, "
        "%3};\n"
        : "+d"(acc[i][j][0]), "+d"(acc[i][j][1]), "+d"(acc[i + 1][j][0]), "+d"(acc[i + 1][j][1])
        : "d"(af[i][0]), "d"(af[i + 1][0]), "d"(af[i][1]), "d"(af[i + 1][1]), "d"(bf[j][0]), "d"(bf[j][1]));
#else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
        "{%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
        : "+d"(acc[i][j][0]), "+d"(acc[i][j][1]), "+d"(acc[i + 1][j][0]), "+d"(acc[i + 1][j][1])
        : "d"(af[i][0]), "d"(af[i + 1][0]), "d"(af[i][1]), "d"(af[i + 1][1]), "d"(af[i][2]), "d"(af[i + 1][2]),
          "d"(af[i][3]), "d"(af[i + 1][3]), "d"(bf[j][0]), "d"(bf[j][1]), "d"(bf[j][2]), "d"(bf[j][3]));
#endif
  }
}

#if SPLITK > 1
// This slice's accumulators out to `part` (a double2 per accumulator pair, every thread's
// side by side), counted in done[tile]; the last slice to count sums all slices in order
// from `part` into acc and returns true.
__device__ __forceinline__ bool dmma_split_sum(double* __restrict__ part, unsigned* __restrict__ done, unsigned tile,
                                               unsigned slice, unsigned tid, double (&acc)[DMMA_MI][DMMA_NJ][2]) {
  constexpr unsigned kPairs = DMMA_MI * DMMA_NJ, kTile = DMMA_THREADS * kPairs * 2;
  double2* mine = reinterpret_cast<double2*>(part + ((size_t)tile * SPLITK + slice) * kTile) + tid;
#pragma unroll
  for (unsigned i = 0; i < DMMA_MI; ++i)
#pragma unroll
    for (unsigned j = 0; j < DMMA_NJ; ++j) mine[(i * DMMA_NJ + j) * DMMA_THREADS] = make_double2(acc[i][j][0], acc[i][j][1]);
  __threadfence();  // the partial is visible device-wide before it is counted
  __syncthreads();
  // The verdict travels by __syncthreads_or, not a __shared__ word: a static shared variable
  // moves the dynamic shared memory (the stages) off its 128-byte alignment, and then every
  // 16-byte cp.async moves twice the bytes from L2 (ncu on an H100, 512x512x8192, 32x32
  // tiles, SPLITK 2: 2.14 GB instead of 1.07 GB for the same 2,097,152 requests; 287 us
  // instead of 112 us, slower than no split at all).
  unsigned am_last = 0;
  if (tid == 0) am_last = atomicAdd(done + tile, 1u) == SPLITK - 1;
  if (!__syncthreads_or(am_last)) return false;
  if (tid == 0) done[tile] = 0;  // ready for the next launch
  const double2* all = reinterpret_cast<const double2*>(part + (size_t)tile * SPLITK * kTile) + tid;
#pragma unroll
  for (unsigned i = 0; i < DMMA_MI; ++i)
#pragma unroll
    for (unsigned j = 0; j < DMMA_NJ; ++j) acc[i][j][0] = acc[i][j][1] = 0;
  for (unsigned q = 0; q < SPLITK; ++q)
#pragma unroll
    for (unsigned i = 0; i < DMMA_MI; ++i)
#pragma unroll
      for (unsigned j = 0; j < DMMA_NJ; ++j) {
        const double2 v = __ldcg(all + ((size_t)q * kPairs + i * DMMA_NJ + j) * DMMA_THREADS);
        acc[i][j][0] += v.x;
        acc[i][j][1] += v.y;
      }
  return true;
}
#endif

// The explicit minimum of 1 block per SM matters: without it, CUDA 13's ptxas aims for a
// higher occupancy and spills the accumulators of some tilings.
extern "C" __global__ void __launch_bounds__(DMMA_THREADS, 1)
    gemm_dmma(const unsigned m, const unsigned n, const unsigned k, const double alpha, const double* __restrict__ A,
              const double* __restrict__ B, const double beta, double* __restrict__ C, double* __restrict__ part,
              unsigned* __restrict__ done) {
  // TA: A is stored k×m, so its tile is BK rows of BM; TB: B is stored n×k, BN rows of BK.
  extern __shared__ __align__(16) double dmma_smem[];  // STAGES tiles of A, then STAGES of B

  const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const unsigned g = lane / 4, t = lane % 4;
  const unsigned wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN;  // warp tile within the block
  // Blocks run in launch order; taking them GROUP block-rows at a time, column by column,
  // keeps a GROUP-row panel of A and a few panels of B hot in L2 instead of sweeping all of B.
  const unsigned pid = blockIdx.y * gridDim.x + blockIdx.x, per_group = GROUP * gridDim.x;
  const unsigned first = pid / per_group * GROUP, rows = min(gridDim.y - first, (unsigned)GROUP);
  const unsigned i0 = (first + pid % per_group % rows) * BM, j0 = pid % per_group / rows * BN;
  const unsigned ktiles = (k + BK - 1) / BK;
#if SPLITK > 1
  const unsigned slice = blockIdx.z;
  const unsigned kt_begin = (unsigned)((unsigned long long)ktiles * slice / SPLITK);
  const unsigned kt_end = (unsigned)((unsigned long long)ktiles * (slice + 1) / SPLITK);
#else
  const unsigned kt_begin = 0, kt_end = ktiles;
#endif
  const unsigned p_begin = kt_begin * BK;  // the copiers start at this slice's first k-tile

#if TA
  dmma_copier<BK, BM, 1 + VEC_A, true> ca(A, m, p_begin, i0, k, m, tid);
#else
  dmma_copier<BM, BK, 1 + VEC_A, false> ca(A, k, i0, p_begin, m, k, tid);
#endif
#if TB
  dmma_copier<BN, BK, 1 + VEC_B, false> cb(B, k, j0, p_begin, n, k, tid);
#else
  dmma_copier<BK, BN, 1 + VEC_B, true> cb(B, n, p_begin, j0, k, n, tid);
#endif
  // The copiers walk k in order: copy kt always follows copy kt - 1.
  const unsigned as0 = static_cast<unsigned>(__cvta_generic_to_shared(dmma_smem));  // stages of A, then of B
  const unsigned bs0 = as0 + STAGES * BM * BK * sizeof(double);
  const auto load = [&](unsigned kt, unsigned s) {
    ca.copy(as0 + s * (BM * BK * sizeof(double)), kt * BK, k);
    cb.copy(bs0 + s * (BN * BK * sizeof(double)), kt * BK, k);
  };

  double acc[DMMA_MI][DMMA_NJ][2];
#pragma unroll
  for (int i = 0; i < DMMA_MI; ++i)
#pragma unroll
    for (int j = 0; j < DMMA_NJ; ++j) acc[i][j][0] = acc[i][j][1] = 0;

  // Prologue: tiles 0 .. STAGES-2 in flight. Every step commits one group, empty or not,
  // so that "wait until at most STAGES-2 groups are pending" always means "the next tile landed".
#pragma unroll
  for (unsigned s = 0; s < STAGES - 1; ++s) {
    if (kt_begin + s < kt_end) load(kt_begin + s, s);
    asm volatile("cp.async.commit_group;\n" ::);
  }
  asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
  __syncthreads();

  // B's fragments in two buffers: the k-step being multiplied and the next one, loaded
  // while the tensor cores work. A's in one: an instruction row's next fragments are loaded
  // as soon as its instructions are issued, a whole k-step before they are needed (the
  // accumulators take 128 of the 255 registers). The last k-step of a tile loads the next
  // tile's first fragments, so the barrier that publishes that tile comes just before it;
  // it also tells every warp that the stage copied next is no longer read.
  unsigned oa[4], ob[4];
  dmma_bases<BM, TA>(oa, wr, g, t);
  dmma_bases<BN, !TB>(ob, wc, g, t);
  double af[DMMA_MI][DMMA_KQ], bf[2][DMMA_NJ][DMMA_KQ];
  unsigned rs = 0, ws = STAGES - 1;  // stage read, stage copied into
  dmma_frag_b(bf[0], bs0, ob, 0);
#pragma unroll
  for (unsigned i = 0; i < DMMA_MI; i += DMMA_RG) dmma_frag_a(af, i, as0, oa, 0);
  for (unsigned kt = kt_begin; kt < kt_end;) {
    // With an odd number of k-steps a tile, B's buffers alternate by tile: two tiles a turn,
    // so that the buffer index stays a constant.
#pragma unroll
    for (unsigned h = 0; h < (DMMA_KS % 2 ? 2u : 1u); ++h) {
      if (h == 1 && kt >= kt_end) break;
#pragma unroll
      for (unsigned ks = 0; ks < DMMA_KS; ++ks) {
        const unsigned cur = (h * DMMA_KS + ks) & 1;
        if (ks == 0) {
          if (kt + STAGES - 1 < kt_end) load(kt + STAGES - 1, ws);
          asm volatile("cp.async.commit_group;\n" ::);
        }
        if (ks == DMMA_KS - 1) {
          asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
          __syncthreads();
          rs = rs == STAGES - 1 ? 0 : rs + 1;
          ws = ws == STAGES - 1 ? 0 : ws + 1;
        }
        // After the last tile this reads a stale stage: harmless, and cheaper than a test.
        const unsigned next = (ks + 1) % DMMA_KS * DMMA_IK;
        const unsigned as = as0 + rs * (BM * BK * sizeof(double)), bs = bs0 + rs * (BN * BK * sizeof(double));
        dmma_frag_b(bf[cur ^ 1], bs, ob, next);
#pragma unroll
        for (unsigned i = 0; i < DMMA_MI; i += DMMA_RG) {
          dmma_mma_rows(acc, af, bf[cur], i);
          dmma_frag_a(af, i, as, oa, next);
        }
      }
      ++kt;
    }
  }

#if SPLITK > 1
  if (!dmma_split_sum(part, done, pid, slice, tid, acc)) return;
#endif
  // Epilogue: each lane owns two adjacent columns of C per block; beta = 0 reads no C.
#pragma unroll
  for (unsigned i = 0; i < DMMA_MI; ++i) {
    const unsigned row = i0 + wr + 8 * i + g;
    if (row >= m) continue;
#pragma unroll
    for (unsigned j = 0; j < DMMA_NJ; ++j) {
      const unsigned col = j0 + wc + 8 * j + 2 * t;
      double* c = C + (size_t)row * n + col;
      double v0 = alpha * acc[i][j][0], v1 = alpha * acc[i][j][1];
#if VEC_C
      if (col < n) {  // n even: the pair is whole
        if (beta != 0) {
          const double2 old = *reinterpret_cast<const double2*>(c);
          v0 += beta * old.x;
          v1 += beta * old.y;
        }
        *reinterpret_cast<double2*>(c) = make_double2(v0, v1);
      }
#else
      if (col < n) c[0] = beta != 0 ? v0 + beta * c[0] : v0;
      if (col + 1 < n) c[1] = beta != 0 ? v1 + beta * c[1] : v1;
#endif
    }
  }
}
