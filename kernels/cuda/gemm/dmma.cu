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
// 48 KiB of static shared memory: four 128×128×16 stages take 128 KiB. (On the H200 they
// do not pay: 128×64×8 in 3 or 4 stages stays the fastest, docs/performance.md.)
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
#define DMMA_MI (WM / 8)      // 8-row fragment blocks per warp
#define DMMA_NJ (WN / 8)      // 8-column fragment blocks per warp
#define DMMA_KQ (DMMA_IK / 4) // 4-deep fragment slices per instruction

static_assert(BM % WM == 0 && BN % WN == 0 && WM % DMMA_IM == 0 && WN % 8 == 0, "warp tiling");
static_assert(BK % DMMA_IK == 0 && BK % 8 == 0 && BM % 16 == 0 && BN % 16 == 0, "tile shape");
static_assert(STAGES >= 2, "the pipeline needs two stages");

// Offset of element (r, c) in a tile of COLS contiguous doubles per row.
template <int COLS>
__device__ __forceinline__ unsigned dmma_swz(unsigned r, unsigned c) {
  return r * COLS + (c ^ (COLS >= 16 ? (r & 3) << 2 : (r & 2) << 1));
}

// Copies rows [row0, row0 + ROWS) × columns [col0, col0 + COLS) of a row-major matrix
// (nrows × ncols, leading dimension ld) into a swizzled shared tile, zero-filling what lies
// outside the matrix (src-size 0 reads nothing). VEC = 2 moves 16-byte pairs: it needs ld
// and ncols even, so a pair is wholly inside or wholly outside.
template <int ROWS, int COLS, int VEC>
__device__ __forceinline__ void dmma_load(double* s, const double* __restrict__ g, unsigned ld, unsigned row0,
                                          unsigned col0, unsigned nrows, unsigned ncols, unsigned tid) {
  constexpr unsigned PER_ROW = COLS / VEC, CHUNKS = ROWS * PER_ROW;
#pragma unroll
  for (unsigned q0 = 0; q0 < CHUNKS; q0 += DMMA_THREADS) {
    const unsigned q = q0 + tid;
    if (CHUNKS % DMMA_THREADS == 0 || q < CHUNKS) {
      const unsigned r = q / PER_ROW, c = q % PER_ROW * VEC;
      const bool in = row0 + r < nrows && col0 + c < ncols;
      const double* src = in ? g + (size_t)(row0 + r) * ld + (col0 + c) : g;
      const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(s + dmma_swz<COLS>(r, c)));
      if (VEC == 2)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(in ? 16 : 0));
      else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(in ? 8 : 0));
    }
  }
}

// acc[i][j] += A block i × B block j over one instruction's depth (DMMA_KQ slices).
__device__ __forceinline__ void dmma_mma(double (&acc)[DMMA_MI][DMMA_NJ][2], const double (&af)[DMMA_MI][DMMA_KQ],
                                         const double (&bf)[DMMA_NJ][DMMA_KQ]) {
#pragma unroll
  for (int i = 0; i < DMMA_MI; i += DMMA_IM / 8) {
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
}

// The explicit minimum of 1 block per SM matters: without it, CUDA 13's ptxas aims for a
// higher occupancy and spills the accumulators of some tilings.
extern "C" __global__ void __launch_bounds__(DMMA_THREADS, 1)
    gemm_dmma(const unsigned m, const unsigned n, const unsigned k, const double alpha, const double* __restrict__ A,
              const double* __restrict__ B, const double beta, double* __restrict__ C) {
  // TA: A is stored k×m, so its tile is BK rows of BM; TB: B is stored n×k, BN rows of BK.
  extern __shared__ __align__(16) double dmma_smem[];  // STAGES tiles of A, then STAGES of B
  double(*As)[BM * BK] = reinterpret_cast<double(*)[BM * BK]>(dmma_smem);
  double(*Bs)[BN * BK] = reinterpret_cast<double(*)[BN * BK]>(dmma_smem + STAGES * BM * BK);

  const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const unsigned g = lane / 4, t = lane % 4;
  const unsigned wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN;  // warp tile within the block
  // Blocks run in launch order; taking them GROUP block-rows at a time, column by column,
  // keeps a GROUP-row panel of A and a few panels of B hot in L2 instead of sweeping all of B.
  const unsigned pid = blockIdx.y * gridDim.x + blockIdx.x, per_group = GROUP * gridDim.x;
  const unsigned first = pid / per_group * GROUP, rows = min(gridDim.y - first, (unsigned)GROUP);
  const unsigned i0 = (first + pid % per_group % rows) * BM, j0 = pid % per_group / rows * BN;
  const unsigned ktiles = (k + BK - 1) / BK;

  const auto load = [&](unsigned kt, unsigned s) {
    const unsigned p0 = kt * BK;
#if TA
    dmma_load<BK, BM, 1 + VEC_A>(As[s], A, m, p0, i0, k, m, tid);
#else
    dmma_load<BM, BK, 1 + VEC_A>(As[s], A, k, i0, p0, m, k, tid);
#endif
#if TB
    dmma_load<BN, BK, 1 + VEC_B>(Bs[s], B, k, j0, p0, n, k, tid);
#else
    dmma_load<BK, BN, 1 + VEC_B>(Bs[s], B, n, p0, j0, k, n, tid);
#endif
  };

  double acc[DMMA_MI][DMMA_NJ][2];
#pragma unroll
  for (int i = 0; i < DMMA_MI; ++i)
#pragma unroll
    for (int j = 0; j < DMMA_NJ; ++j) acc[i][j][0] = acc[i][j][1] = 0;

  // Prologue: tiles 0 .. STAGES-2 in flight. Every step commits one group, empty or not,
  // so that "wait until at most STAGES-2 groups are pending" always means "tile kt landed".
#pragma unroll
  for (unsigned s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) load(s, s);
    asm volatile("cp.async.commit_group;\n" ::);
  }

  unsigned rs = 0, ws = STAGES - 1;  // stage read in this step, stage written in it
  for (unsigned kt = 0; kt < ktiles; ++kt) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
    // Makes tile kt visible to all warps, and guarantees every warp is done with the
    // stage read in the previous step, which is the one overwritten next.
    __syncthreads();
    if (kt + STAGES - 1 < ktiles) load(kt + STAGES - 1, ws);
    asm volatile("cp.async.commit_group;\n" ::);

    const double* as = As[rs];
    const double* bs = Bs[rs];
#pragma unroll
    for (unsigned ks = 0; ks < BK; ks += DMMA_IK) {
      double af[DMMA_MI][DMMA_KQ], bf[DMMA_NJ][DMMA_KQ];
#pragma unroll
      for (unsigned q = 0; q < DMMA_KQ; ++q) {
        const unsigned p = ks + 4 * q + t;
#pragma unroll
        for (unsigned i = 0; i < DMMA_MI; ++i) {
          const unsigned r = wr + 8 * i + g;
#if TA
          af[i][q] = as[dmma_swz<BM>(p, r)];
#else
          af[i][q] = as[dmma_swz<BK>(r, p)];
#endif
        }
#pragma unroll
        for (unsigned j = 0; j < DMMA_NJ; ++j) {
          const unsigned c = wc + 8 * j + g;
#if TB
          bf[j][q] = bs[dmma_swz<BK>(c, p)];
#else
          bf[j][q] = bs[dmma_swz<BN>(p, c)];
#endif
        }
      }
      dmma_mma(acc, af, bf);
    }
    rs = rs == STAGES - 1 ? 0 : rs + 1;
    ws = ws == STAGES - 1 ? 0 : ws + 1;
  }

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
