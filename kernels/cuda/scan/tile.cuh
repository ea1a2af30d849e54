// One tile of a block scan: WG threads, IPT items each (TILE = WG * IPT). Items are
// loaded striped (coalesced) into shared memory, read back blocked (thread t owns
// items t*IPT .. t*IPT+IPT-1), scanned sequentially in registers, and the thread
// totals are scanned with warp shuffles. One padding word per 32 keeps the blocked
// reads free of bank conflicts for power-of-two IPT. I32 adds as uint (wraps).
#define TILE (WG * IPT)
#define HB_PAD(i) ((i) + ((i) >> 5))

__device__ __forceinline__ REAL hb_warp_incl_scan(REAL v) {
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const REAL t = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v += t;
  }
  return v;
}

// Loads tile `tile` of x into v[] (blocked) through smem; missing items are 0.
__device__ __forceinline__ void hb_tile_load(const unsigned n, const REAL* __restrict__ x, unsigned tile,
                                             REAL* smem, REAL (&v)[IPT]) {
  const unsigned base = tile * TILE;
#pragma unroll
  for (int k = 0; k < IPT; ++k) {
    const unsigned i = k * WG + threadIdx.x;
    smem[HB_PAD(i)] = base + i < n ? HB_SCAN_IN(__ldg(&x[base + i])) : REAL(0);
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < IPT; ++k) v[k] = smem[HB_PAD(threadIdx.x * IPT + k)];
}

// The exclusive prefix of this thread's items within the block; *total gets the
// block's sum (valid in every thread after the call).
__device__ __forceinline__ REAL hb_block_excl(REAL mine, REAL* warp_tot, REAL* total) {
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const REAL incl = hb_warp_incl_scan(mine);
  if (lane == 31) warp_tot[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    REAL w = lane < WG / 32 ? warp_tot[lane] : REAL(0);
    w = hb_warp_incl_scan(w);
    if (lane < WG / 32) warp_tot[lane] = w;  // inclusive prefix of warp totals
  }
  __syncthreads();
  *total = warp_tot[WG / 32 - 1];
  // Exclusive from the neighbour's inclusive value, not incl - mine: every prefix stays a
  // plain sum of items, which is what the op's error bound assumes.
  REAL ex = __shfl_up_sync(0xffffffffu, incl, 1);
  if (lane == 0) ex = 0;
  return warp ? warp_tot[warp - 1] + ex : ex;
}

// Writes the scanned items (prefix: what precedes this thread's first item) back
// through smem, coalesced; EXCL selects the exclusive scan.
__device__ __forceinline__ void hb_tile_store(const unsigned n, REAL* __restrict__ y, unsigned tile, REAL* smem,
                                              const REAL (&v)[IPT], REAL prefix) {
  __syncthreads();  // every thread has read its items from smem
  REAL run = prefix;
#pragma unroll
  for (int k = 0; k < IPT; ++k) {
#if EXCL
    smem[HB_PAD(threadIdx.x * IPT + k)] = run;
    run += v[k];
#else
    run += v[k];
    smem[HB_PAD(threadIdx.x * IPT + k)] = run;
#endif
  }
  __syncthreads();
  const unsigned base = tile * TILE;
#pragma unroll
  for (int k = 0; k < IPT; ++k) {
    const unsigned i = k * WG + threadIdx.x;
    if (base + i < n) y[base + i] = smem[HB_PAD(i)];
  }
}
