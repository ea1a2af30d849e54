// Single-pass scan with decoupled look-back, organised as CUB's DeviceScan (AgentScan with
// BLOCK_LOAD_WARP_TRANSPOSE and BlockScanWarpScans; Merrill and Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", NVIDIA NVR-2016-002). Against
// lookback.cu, what costs less per tile: each warp loads its own 32*IPT segment with
// 16-byte vector loads and transposes it through its own slice of shared memory (a
// __syncwarp, not a block barrier); the block needs two barriers (warp totals, tile
// prefix); the tile status is one word (status.cuh), so publishing is one store and each
// predecessor one load, with no __threadfence on either side. Tiles come from a counter,
// so a block only ever waits for tiles that blocks already running hold.
#define TILE (WG * IPT)
#define WITEMS (32 * IPT)
#define NWARPS (WG / 32)
// One pad word per 128 bytes: the blocked reads (stride IPT) and the striped writes of
// vector elements (stride VEC16) then fall in distinct banks for IPT = 8, 16, 24.
#define HB_PADW(i) ((i) + (i) / (128 / sizeof(REAL)))
#ifndef DELAY
#define DELAY 0
#endif

// Zeroes the tile status words and the tile counter: the first launch of every execution.
extern "C" __global__ void scan_dlb_init(const unsigned tiles, unsigned long long* __restrict__ status,
                                         unsigned* __restrict__ counter) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < tiles)
    for (int w = 0; w < HB_SW; ++w) status[static_cast<size_t>(i) * HB_SW + w] = 0;
  if (i == 0) *counter = 0;
}

__device__ __forceinline__ REAL hb_warp_incl(REAL v, const unsigned lane) {
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const REAL t = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v += t;
  }
  return v;
}

// Warp 0's part: publishes the tile's aggregate, sums the predecessors' values 32 at a
// time back to the nearest inclusive prefix, publishes its own inclusive prefix, and
// returns the tile's exclusive prefix (in lane 0).
__device__ __forceinline__ REAL hb_look_back(hb_status_t* status, const unsigned tile, const REAL total,
                                             const unsigned lane) {
  if (tile == 0) {
    if (lane == 0) hb_status_store(&status[0], 2u, total);
    return REAL(0);
  }
  if (lane == 0) hb_status_store(&status[tile], 1u, total);
  REAL prefix = 0;
  for (int pred = static_cast<int>(tile) - 1 - static_cast<int>(lane);; pred -= 32) {
    REAL val = 0;
    unsigned f = 2u;  // before tile 0: an inclusive prefix of 0
    if (pred >= 0) f = hb_status_load(&status[pred], &val);
    while (__any_sync(0xffffffffu, f == 0u)) {
#if DELAY
      __nanosleep(DELAY);
#endif
      if (f == 0u) f = hb_status_load(&status[pred], &val);
    }
    const unsigned pmask = __ballot_sync(0xffffffffu, f == 2u);
    const unsigned first = pmask ? __ffs(pmask) - 1 : 32u;  // the nearest inclusive prefix
    if (lane > first) val = 0;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) val += __shfl_down_sync(0xffffffffu, val, off);
    prefix += val;  // lane 0's is the window's sum
    if (pmask) break;
  }
  if (lane == 0) hb_status_store(&status[tile], 2u, prefix + total);
  return prefix;
}

extern "C" __global__ void __launch_bounds__(WG) scan_decoupled(const unsigned n, const REAL* __restrict__ x,
                                                                REAL* __restrict__ y, hb_status_t* status,
                                                                unsigned* __restrict__ counter) {
  __shared__ REAL smem[NWARPS][HB_PADW(WITEMS)];
  __shared__ REAL warp_tot[NWARPS];
  __shared__ unsigned tile_s;
  __shared__ REAL prefix_s;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) tile_s = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = tile_s;
  const size_t base = static_cast<size_t>(tile) * TILE + static_cast<size_t>(warp) * WITEMS;
  const bool full = static_cast<size_t>(tile) * TILE + TILE <= n;  // the same in the whole block
  REAL* ws = smem[warp];

  // Warp-striped loads (vector j of lane l holds items (32 j + l) * VEC16 ...), all issued
  // before the first shared store, then read back blocked: lane l owns l*IPT ... l*IPT+IPT-1.
  if (full) {
    const REALV16* xv = reinterpret_cast<const REALV16*>(x + base);
    REALV16 q[IPT / VEC16];
#pragma unroll
    for (int j = 0; j < IPT / VEC16; ++j) q[j] = __ldg(&xv[j * 32 + lane]);
#pragma unroll
    for (int j = 0; j < IPT / VEC16; ++j) {
      const unsigned i = (j * 32 + lane) * VEC16;
      ws[HB_PADW(i)] = HB_SCAN_IN(q[j].x);
      ws[HB_PADW(i + 1)] = HB_SCAN_IN(q[j].y);
#if VEC16 == 4
      ws[HB_PADW(i + 2)] = HB_SCAN_IN(q[j].z);
      ws[HB_PADW(i + 3)] = HB_SCAN_IN(q[j].w);
#endif
    }
  } else {
#pragma unroll
    for (int k = 0; k < IPT; ++k) {
      const unsigned i = k * 32 + lane;
      ws[HB_PADW(i)] = base + i < n ? HB_SCAN_IN(x[base + i]) : REAL(0);
    }
  }
  __syncwarp();
  REAL v[IPT];
#pragma unroll
  for (int k = 0; k < IPT; ++k) v[k] = ws[HB_PADW(lane * IPT + k)];

  // Thread sums, a warp scan of them, and the warp totals through shared memory: each
  // thread adds the totals of the warps before its own (at most WG/32 words).
  REAL mine = v[0];
#pragma unroll
  for (int k = 1; k < IPT; ++k) mine += v[k];
  const REAL incl = hb_warp_incl(mine, lane);
  if (lane == 31) warp_tot[warp] = incl;
  __syncthreads();
  REAL wpre = 0, total = 0;
#pragma unroll
  for (int w = 0; w < NWARPS; ++w) {
    if (w == static_cast<int>(warp)) wpre = total;
    total += warp_tot[w];
  }
  // Exclusive from the neighbour's inclusive value, not incl - mine: every prefix stays a
  // plain sum of items, which is what the op's error bound assumes.
  REAL ex = __shfl_up_sync(0xffffffffu, incl, 1);
  if (lane == 0) ex = 0;
  const REAL before = warp ? wpre + ex : ex;

  if (warp == 0) {
    const REAL prefix = hb_look_back(status, tile, total, lane);
    if (lane == 0) prefix_s = prefix;
  }
  __syncthreads();

  // Scanned items back blocked into the warp's slice (its blocked reads are behind the
  // barriers above), then out striped with vector stores.
  REAL run = prefix_s + before;
#pragma unroll
  for (int k = 0; k < IPT; ++k) {
#if EXCL
    ws[HB_PADW(lane * IPT + k)] = run;
    run += v[k];
#else
    run += v[k];
    ws[HB_PADW(lane * IPT + k)] = run;
#endif
  }
  __syncwarp();
  if (full) {
    REALV16* yv = reinterpret_cast<REALV16*>(y + base);
#pragma unroll
    for (int j = 0; j < IPT / VEC16; ++j) {
      const unsigned i = (j * 32 + lane) * VEC16;
      REALV16 q;
      q.x = ws[HB_PADW(i)];
      q.y = ws[HB_PADW(i + 1)];
#if VEC16 == 4
      q.z = ws[HB_PADW(i + 2)];
      q.w = ws[HB_PADW(i + 3)];
#endif
      yv[j * 32 + lane] = q;
    }
  } else {
#pragma unroll
    for (int k = 0; k < IPT; ++k) {
      const unsigned i = k * 32 + lane;
      if (base + i < n) y[base + i] = ws[HB_PADW(i)];
    }
  }
}
