// The merge-path partition (Merrill & Garland, SC'16) of the merge SpMV kernels (merge.cu
// in S and D, dw_merge.cu in DF and DD): which row each tile of TILE = WG * IPT path items
// starts in, and the runs of tiles whose carries go to one row. It depends only on row_ptr,
// so it is computed once when a point is prepared ("setup" in the metadata). The searches
// themselves are portable/spmv/merge_path.k, which the OpenCL merge kernel shares.
#define TILE (WG * IPT)
#if WG % 32 != 0 || IPT < 1 || IPT > 32
#error "WG must be a multiple of 32 and IPT in 1..32"
#endif

// Inside a tile kernel: the row ends of the tile's nr rows as local nonzero indices
// (nonzero n0 is local 0) into row_end[0, nr), and past them a sentinel, since after the
// last row end only nonzeros remain. Shared memory; the caller synchronises.
__device__ __forceinline__ void hb_merge_tile_row_ends(int* row_end, const int* __restrict__ row_ptr, const int r0,
                                                       const int nr, const int n0, const int tid) {
#pragma unroll
  for (int u = 0; u < IPT; ++u) {
    const int k = tid + u * WG;
    if (k < nr) row_end[k] = row_ptr[r0 + 1 + k] - n0;
  }
  if (tid == 0) row_end[nr] = 0x7fffffff;
}

extern "C" __global__ void spmv_merge_search(const unsigned rows, const unsigned nnz, const unsigned tiles,
                                             const int* __restrict__ row_ptr, int* __restrict__ coords) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const long d = min((long)t * TILE, (long)rows + nnz);
  coords[t] = hb_merge_path_rows(d, rows, nnz, row_ptr);
}

// Setup, after the search: run_len[t] = the number of tiles t, t+1, ... whose carries go to
// row R = coords[t + 1], for the first tile of each such run (0 for the others and when R is
// past the last row). Knowing the length up front lets the fixup issue its loads at once
// instead of testing coords tile by tile: a dense row spans thousands of tiles.
extern "C" __global__ void spmv_merge_runs(const unsigned rows, const unsigned tiles, const int* __restrict__ coords,
                                           int* __restrict__ run_len) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tiles) return;
  const int r = coords[t + 1];
  if (r >= (int)rows || (t > 0 && coords[t] == r)) {
    run_len[t] = 0;
    return;
  }
  // coords never decrease: the run ends before the first u with coords[u + 1] > r.
  unsigned lo = t + 1, hi = tiles;
  while (lo < hi) {
    const unsigned mid = (lo + hi) >> 1;
    if (coords[mid + 1] <= r) lo = mid + 1;
    else hi = mid;
  }
  run_len[t] = (int)(lo - t);
}

