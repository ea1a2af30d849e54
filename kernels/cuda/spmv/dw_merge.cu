// Merge-path CSR SpMV in DF and DD: merge.cu's partition (merge_path.cuh) and its two
// launches per multiplication, in double words. Products with the accurate multiply of
// common/dfdd.h; every sum (a thread's run, the segmented warp scan, the carries) with the
// sloppy add, as dw.cu's row sums: its error is bounded relative to |x| + |y| of each
// addition, so docs/validation.md's per-row bound holds whatever the order of a row's
// additions, and a row split across threads and tiles is added in a tree instead of a
// chain. α and β with the accurate operations. val, x and y in the storage SOA gives;
// products and row sums in shared memory as two planes of words (hi, lo), so that a warp's
// accesses stay one word wide; carries as (hi, lo) pairs. Deterministic: no atomics.
//
// Shared memory: WG·IPT·(2 words + an int) + NW·(an int + 2 words), the constraint of the
// metadata (elem_bytes is the double word's size).

__device__ __forceinline__ hb_dw hb_merge_shfl_up(const hb_dw v, const int off) {
  return hb_dw{__shfl_up_sync(0xffffffffu, v.hi, off), __shfl_up_sync(0xffffffffu, v.lo, off)};
}

extern "C" __global__ void __launch_bounds__(WG)
    spmv_dw_merge_tile(const unsigned rows, const unsigned cols, const unsigned nnz, const int* __restrict__ row_ptr,
                       const int* __restrict__ col, const REAL* __restrict__ val, const REAL* __restrict__ x,
                       const REAL alpha_hi, const REAL alpha_lo, const REAL beta_hi, const REAL beta_lo,
                       REAL* __restrict__ y, const int* __restrict__ coords, REAL* __restrict__ carry) {
  constexpr int NW = WG / 32;
  __shared__ REAL prod_hi[TILE], prod_lo[TILE];  // the products; reused for the finished rows' sums
  __shared__ int row_end[TILE + 1];
  __shared__ int warp_key[NW];
  __shared__ REAL warp_hi[NW], warp_lo[NW];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const unsigned t = blockIdx.x;
  const int r0 = coords[t], r1 = coords[t + 1];
  const long long d0 = (long long)t * TILE;
  const long long d1 = min(d0 + TILE, (long long)rows + nnz);
  const int n0 = (int)(d0 - r0), nz = (int)(d1 - r1) - n0;  // nonzeros [n0, n0 + nz)
  const int nr = r1 - r0;                                    // rows r0 .. r1-1 end here
  const int items = nr + nz;

  {  // all IPT column and value loads first, then the x loads, as merge.cu
    int c[IPT];
    hb_dw v[IPT];
#pragma unroll
    for (int u = 0; u < IPT; ++u) {
      const int k = tid + u * WG;
      c[u] = k < nz ? col[n0 + k] : 0;
      v[u] = k < nz ? hb_load_elem(val, nnz, n0 + k) : hb_dw{0, 0};
    }
#pragma unroll
    for (int u = 0; u < IPT; ++u) {
      const int k = tid + u * WG;
      if (k < nz) {
        const hb_dw p = hetbench::mul_accurate(v[u], hb_ldg_elem(x, cols, c[u]));
        prod_hi[k] = p.hi;
        prod_lo[k] = p.lo;
      }
    }
  }
  hb_merge_tile_row_ends(row_end, row_ptr, r0, nr, n0, tid);
  __syncthreads();

  // This thread's IPT items start at local diagonal dd.
  const int dd = min(tid * IPT, items);
  const int first_row = hb_merge_tile_rows(row_end, dd, nr, nz);
  int xi = first_row, yj = dd - first_row;
  hb_dw run{0, 0}, ended[IPT];
  unsigned ends = 0;  // bit u: item u ended a row, whose partial sum is ended[u]
#pragma unroll
  for (int u = 0; u < IPT; ++u) {
    ended[u] = hb_dw{0, 0};
    if (dd + u < items) {
      if (yj < row_end[xi]) {
        run = hetbench::add_sloppy(run, hb_dw{prod_hi[yj], prod_lo[yj]});
        ++yj;
      } else {
        ended[u] = run;
        ends |= 1u << u;
        run = hb_dw{0, 0};
        ++xi;
      }
    }
  }

  // Inclusive segmented scan of (row xi, run) over the threads, as merge.cu.
  hb_dw incl = run;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const int k = __shfl_up_sync(0xffffffffu, xi, off);
    const hb_dw v = hb_merge_shfl_up(incl, off);
    if (lane >= off && k == xi) incl = hetbench::add_sloppy(v, incl);
  }
  if (NW > 1) {
    if (lane == 31) {
      warp_key[warp] = xi;
      warp_hi[warp] = incl.hi;
      warp_lo[warp] = incl.lo;
    }
    __syncthreads();
    if (warp == 0) {  // the same scan over the warp totals
      const int wk = lane < NW ? warp_key[lane] : -1;
      hb_dw wv = lane < NW ? hb_dw{warp_hi[lane], warp_lo[lane]} : hb_dw{0, 0};
#pragma unroll
      for (int off = 1; off < NW; off <<= 1) {
        const int k = __shfl_up_sync(0xffffffffu, wk, off);
        const hb_dw v = hb_merge_shfl_up(wv, off);
        if (lane >= off && k == wk) wv = hetbench::add_sloppy(v, wv);
      }
      if (lane < NW) {
        warp_hi[lane] = wv.hi;
        warp_lo[lane] = wv.lo;
      }
    }
    __syncthreads();
    if (warp > 0 && warp_key[warp - 1] == xi) incl = hetbench::add_sloppy(hb_dw{warp_hi[warp - 1], warp_lo[warp - 1]}, incl);
  } else {
    __syncthreads();  // every thread has finished reading the products before they are reused
  }
  // A thread's carry-in is the inclusive value of the thread before it, whose row is this
  // thread's first row.
  hb_dw carry_in = hb_merge_shfl_up(incl, 1);
  if (lane == 0) carry_in = warp > 0 ? hb_dw{warp_hi[warp - 1], warp_lo[warp - 1]} : hb_dw{0, 0};
  if (tid == WG - 1) {  // the partial sum of row r1, added by fixup
    carry[2 * t] = incl.hi;
    carry[2 * t + 1] = incl.lo;
  }

  int xr = first_row;
  bool first = true;
#pragma unroll
  for (int u = 0; u < IPT; ++u) {
    if (ends >> u & 1u) {
      const hb_dw s = first ? hetbench::add_sloppy(ended[u], carry_in) : ended[u];
      prod_hi[xr] = s.hi;
      prod_lo[xr] = s.lo;
      ++xr;
      first = false;
    }
  }
  __syncthreads();
  const hb_dw alpha{alpha_hi, alpha_lo}, beta{beta_hi, beta_lo};
  for (int k = tid; k < nr; k += WG) {
    const unsigned r = (unsigned)(r0 + k);
    const hb_dw as = hetbench::mul_accurate(alpha, hb_dw{prod_hi[k], prod_lo[k]});
    hb_store_elem(y, rows, r,
                  beta.hi == REAL(0) ? as
                                     : hetbench::add_accurate(as, hetbench::mul_accurate(beta, hb_load_elem(y, rows, r))));
  }
}

// Row R = coords[t + 1] gets the carries of its run of tiles (merge_path.cuh's run_len): one
// warp per run, each lane a strided slice, then a shuffle tree; fixed order. y[R] += α·s.
extern "C" __global__ void spmv_dw_merge_fixup(const unsigned rows, const unsigned tiles, const int* __restrict__ coords,
                                               const int* __restrict__ run_len, const REAL* __restrict__ carry,
                                               const REAL alpha_hi, const REAL alpha_lo, REAL* __restrict__ y) {
  const unsigned t = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31u;
  if (t >= tiles) return;  // uniform per warp
  const int len = run_len[t];
  if (len == 0) return;
  hb_dw s{0, 0};
  for (int i = (int)lane; i < len; i += 32) s = hetbench::add_sloppy(s, hb_dw{carry[2 * (t + i)], carry[2 * (t + i) + 1]});
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    s = hetbench::add_sloppy(
        s, hb_dw{__shfl_down_sync(0xffffffffu, s.hi, off), __shfl_down_sync(0xffffffffu, s.lo, off)});
  if (lane == 0) {
    const unsigned r = (unsigned)coords[t + 1];
    hb_store_elem(y, rows, r,
                  hetbench::add_accurate(hb_load_elem(y, rows, r), hetbench::mul_accurate(hb_dw{alpha_hi, alpha_lo}, s)));
  }
}
