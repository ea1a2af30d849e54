// Single-pass scan with decoupled look-back (Merrill and Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", NVIDIA NVR-2016-002). Tiles are
// taken in order from a counter, so a block only ever waits for tiles that running
// blocks hold: CUDA's resident blocks make progress, which OpenCL does not promise.
// Each tile publishes its aggregate (flag 1) at once and its inclusive prefix (flag 2)
// once known; warp 0 looks back over 32 predecessors at a time, adding aggregates up to
// the nearest inclusive prefix. Values are written before a fence and the flag after;
// readers read the flag (volatile), fence, then the value through L2 (ld.cg).

// Zeroes the tile flags and the tile counter: the first launch of every execution.
extern "C" __global__ void scan_lb_init(const unsigned tiles, unsigned* __restrict__ flags,
                                        unsigned* __restrict__ counter) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < tiles) flags[i] = 0;
  if (i == 0) *counter = 0;
}

extern "C" __global__ void __launch_bounds__(WG) scan_lookback(const unsigned n, const REAL* __restrict__ x,
                                                               REAL* __restrict__ y, unsigned* flags,
                                                               REAL* agg, REAL* incl,
                                                               unsigned* __restrict__ counter) {
  __shared__ REAL smem[HB_PAD(TILE)];
  __shared__ REAL warp_tot[WG / 32];
  __shared__ unsigned tile_s;
  __shared__ REAL prefix_s;
  if (threadIdx.x == 0) tile_s = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = tile_s;

  REAL v[IPT];
  hb_tile_load(n, x, tile, smem, v);
  REAL mine = 0;
#pragma unroll
  for (int k = 0; k < IPT; ++k) mine += v[k];
  REAL total;
  const REAL before = hb_block_excl(mine, warp_tot, &total);

  volatile unsigned* vflags = flags;
  if (threadIdx.x < 32) {
    const unsigned lane = threadIdx.x;
    REAL prefix = 0;
    if (tile == 0) {
      if (lane == 0) {
        incl[0] = total;
        __threadfence();
        vflags[0] = 2u;
      }
    } else {
      if (lane == 0) {
        agg[tile] = total;
        __threadfence();
        vflags[tile] = 1u;
      }
      int pred = static_cast<int>(tile) - 1 - static_cast<int>(lane);
      for (;;) {
        unsigned f;
        do {
          f = pred >= 0 ? vflags[pred] : 2u;  // before tile 0: an inclusive prefix of 0
        } while (__any_sync(0xffffffffu, f == 0u));
        __threadfence();
        REAL val = pred < 0 ? REAL(0) : (f == 2u ? __ldcg(&incl[pred]) : __ldcg(&agg[pred]));
        const unsigned pmask = __ballot_sync(0xffffffffu, f == 2u);
        const unsigned first = pmask ? __ffs(pmask) - 1 : 32u;  // nearest inclusive prefix
        if (lane > first) val = 0;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) val += __shfl_down_sync(0xffffffffu, val, off);
        prefix += __shfl_sync(0xffffffffu, val, 0);
        if (pmask) break;
        pred -= 32;
      }
      if (lane == 0) {
        incl[tile] = prefix + total;
        __threadfence();
        vflags[tile] = 2u;
      }
    }
    if (lane == 0) prefix_s = prefix;
  }
  __syncthreads();
  hb_tile_store(n, y, tile, smem, v, prefix_s + before);
}
