// Merge-path CSR SpMV (Merrill & Garland, SC'16): the row ends and the nonzeros are merged
// into one path of rows + nnz items, and every block takes TILE = WG * IPT consecutive
// items, so a dense row costs the same per item as a diagonal. The partition depends only
// on row_ptr, so it is computed once when the point is prepared (untimed, as
// cusparseSpMV_preprocess analyses the matrix once for cuSPARSE):
//   search: the row where each tile's path segment starts, into coords[];
//   runs:   for each row that spans tiles, how many tiles' carries it takes.
// Then every multiplication is two launches:
//   tile:   products into shared memory (IPT coalesced loads per thread in flight), IPT
//           items per thread, a segmented warp-shuffle scan of the threads' carries, then
//           y for every row that ends in the tile, written coalesced;
//   fixup:  adds the carries of rows that span tiles into y, one warp per run of tiles.
// No atomics: every sum is taken in a fixed order, so results are the same run to run.
// The partition's kernels (search, runs) are in merge_path.cuh.
extern "C" __global__ void __launch_bounds__(WG)
    spmv_merge_tile(const unsigned rows, const unsigned nnz, const int* __restrict__ row_ptr,
                    const int* __restrict__ col, const REAL* __restrict__ val, const REAL* __restrict__ x,
                    const REAL alpha, const REAL beta, REAL* __restrict__ y, const int* __restrict__ coords,
                    REAL* __restrict__ carry) {
  constexpr int NW = WG / 32;
  __shared__ REAL prod[TILE];  // the tile's products; reused for the finished rows' sums
  __shared__ int row_end[TILE + 1];
  __shared__ int warp_key[NW];
  __shared__ REAL warp_val[NW];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const unsigned t = blockIdx.x;
  const int r0 = coords[t], r1 = coords[t + 1];
  const long long d0 = (long long)t * TILE;
  const long long d1 = min(d0 + TILE, (long long)rows + nnz);
  const int n0 = (int)(d0 - r0), nz = (int)(d1 - r1) - n0;  // nonzeros [n0, n0 + nz)
  const int nr = r1 - r0;                                    // rows r0 .. r1-1 end here
  const int items = nr + nz;

  {  // all IPT column and value loads first, then all x loads: 2*IPT, then IPT, in flight
    int c[IPT];
    REAL v[IPT];
#pragma unroll
    for (int u = 0; u < IPT; ++u) {
      const int k = tid + u * WG;
      c[u] = k < nz ? col[n0 + k] : 0;
      v[u] = k < nz ? val[n0 + k] : REAL(0);
    }
#pragma unroll
    for (int u = 0; u < IPT; ++u) {
      const int k = tid + u * WG;
      if (k < nz) prod[k] = v[u] * __ldg(x + c[u]);
    }
  }
  hb_merge_tile_row_ends(row_end, row_ptr, r0, nr, n0, tid);
  __syncthreads();

  // This thread's IPT items start at local diagonal dd.
  const int dd = min(tid * IPT, items);
  const int first_row = hb_merge_tile_rows(row_end, dd, nr, nz);
  int xi = first_row, yj = dd - first_row;
  REAL run = 0, ended[IPT];
  unsigned ends = 0;  // bit u: item u ended a row, whose partial sum is ended[u]
#pragma unroll
  for (int u = 0; u < IPT; ++u) {
    ended[u] = 0;
    if (dd + u < items) {
      if (yj < row_end[xi]) {
        run += prod[yj++];
      } else {
        ended[u] = run;
        ends |= 1u << u;
        run = 0;
        ++xi;
      }
    }
  }

  // Inclusive segmented scan of (row xi, run) over the threads. Keys never decrease along the
  // path, so equal keys at distance off mean the whole window between shares the row.
  REAL incl = run;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const int k = __shfl_up_sync(0xffffffffu, xi, off);
    const REAL v = __shfl_up_sync(0xffffffffu, incl, off);
    if (lane >= off && k == xi) incl += v;
  }
  if (NW > 1) {
    if (lane == 31) {
      warp_key[warp] = xi;
      warp_val[warp] = incl;
    }
    __syncthreads();
    if (warp == 0) {  // the same scan over the warp totals
      const int wk = lane < NW ? warp_key[lane] : -1;
      REAL wv = lane < NW ? warp_val[lane] : REAL(0);
#pragma unroll
      for (int off = 1; off < NW; off <<= 1) {
        const int k = __shfl_up_sync(0xffffffffu, wk, off);
        const REAL v = __shfl_up_sync(0xffffffffu, wv, off);
        if (lane >= off && k == wk) wv += v;
      }
      if (lane < NW) warp_val[lane] = wv;
    }
    __syncthreads();
    if (warp > 0 && warp_key[warp - 1] == xi) incl += warp_val[warp - 1];
  } else {
    __syncthreads();  // every thread has finished reading prod before it is reused
  }
  // A thread's carry-in is the inclusive value of the thread before it, whose row is this
  // thread's first row.
  REAL carry_in = __shfl_up_sync(0xffffffffu, incl, 1);
  if (lane == 0) carry_in = warp > 0 ? warp_val[warp - 1] : REAL(0);
  if (tid == WG - 1) carry[t] = incl;  // the partial sum of row r1, added by fixup

  REAL* row_sum = prod;
  int xr = first_row;
  bool first = true;
#pragma unroll
  for (int u = 0; u < IPT; ++u) {
    if (ends >> u & 1u) {
      row_sum[xr++] = first ? ended[u] + carry_in : ended[u];
      first = false;
    }
  }
  __syncthreads();
  for (int k = tid; k < nr; k += WG) y[r0 + k] = spmv_axpby(alpha, row_sum[k], beta, y + r0 + k);
}

// Row R = coords[t + 1] gets the carries of its run of tiles: one warp per run, each lane
// summing a strided slice with FIXUP_ILP loads in flight, then a shuffle tree; the order is
// fixed, so the result is the same run to run. Runs after the tile kernel, which wrote y[R].
#define FIXUP_ILP 16
extern "C" __global__ void spmv_merge_fixup(const unsigned tiles, const int* __restrict__ coords,
                                            const int* __restrict__ run_len, const REAL* __restrict__ carry,
                                            const REAL alpha, REAL* __restrict__ y) {
  const unsigned t = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31u;
  if (t >= tiles) return;  // uniform per warp
  const int len = run_len[t];
  if (len == 0) return;
  REAL part[FIXUP_ILP];
#pragma unroll
  for (int j = 0; j < FIXUP_ILP; ++j) part[j] = 0;
  for (int base = (int)lane; base < len; base += 32 * FIXUP_ILP) {
#pragma unroll
    for (int j = 0; j < FIXUP_ILP; ++j) {
      const int i = base + 32 * j;
      if (i < len) part[j] += carry[t + i];
    }
  }
  REAL s = 0;
#pragma unroll
  for (int j = 0; j < FIXUP_ILP; ++j) s += part[j];
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
  if (lane == 0) y[coords[t + 1]] += alpha * s;
}
