// Merge-path CSR SpMV (Merrill & Garland, SC'16): the row ends and the nonzeros are merged
// into one path of rows + nnz items, and every work-group takes TILE = WG * IPT
// consecutive items, so a dense row costs the same per item as a diagonal. Three kernels
// (the search runs once per matrix, untimed, as setup: it depends only on row_ptr):
//   search: the row where each tile's path segment starts, into coords[];
//   tile:   products into local memory, IPT items per work-item, a segmented scan of the
//           work-items' carries, then y for every row that ends in the tile;
//   fixup:  adds the carries of rows that span tiles into y.
// No atomics: every sum is taken in a fixed order, so results are the same run to run.
#define TILE (WG * IPT)

kernel void spmv_merge_search(const uint rows, const uint nnz, const uint tiles, global const int* restrict row_ptr,
                              global int* restrict coords) {
  const uint t = get_global_id(0);
  if (t > tiles) return;
  const long d = min((long)t * TILE, (long)rows + nnz);
  coords[t] = hb_merge_path_rows(d, rows, nnz, row_ptr);
}

kernel void spmv_merge_tile(const uint rows, const uint nnz, global const int* restrict row_ptr,
                            global const int* restrict col, global const REAL* restrict val,
                            global const REAL* restrict x, const REAL alpha, const REAL beta, global REAL* restrict y,
                            global const int* restrict coords, global REAL* restrict carry) {
  local REAL prod[TILE];  // the tile's products; reused for the finished rows' sums
  local int row_end[TILE + 1];
  local int scan_key[WG];
  local REAL scan_val[WG];
  const int lid = get_local_id(0);
  const uint t = get_group_id(0);
  const int r0 = coords[t], r1 = coords[t + 1];
  const long d0 = (long)t * TILE;
  const long d1 = min(d0 + TILE, (long)rows + nnz);
  const int n0 = (int)(d0 - r0), nz = (int)(d1 - r1) - n0;  // nonzeros [n0, n0 + nz)
  const int nr = r1 - r0;                                    // rows r0 .. r1-1 end here
  const int items = nr + nz;

  for (int k = lid; k < nz; k += WG) prod[k] = val[n0 + k] * x[col[n0 + k]];
  for (int k = lid; k < nr; k += WG) row_end[k] = row_ptr[r0 + 1 + k] - n0;  // local nonzero index
  if (lid == 0) row_end[nr] = INT_MAX;  // past the last row end only nonzeros remain
  barrier(CLK_LOCAL_MEM_FENCE);

  // This work-item's IPT items start at local diagonal dd.
  const int dd = min(lid * IPT, items);
  const int first_row = hb_merge_tile_rows(row_end, dd, nr, nz);
  int xi = first_row, yj = dd - first_row;
  REAL run = 0, ended[IPT];
  uint ends = 0;  // bit u: item u ended a row, whose partial sum is ended[u]
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

  // Inclusive segmented scan of (row xi, run) over the work-items: a work-item's carry-in is
  // the sum of the runs of the preceding work-items that ended inside its first row.
  scan_key[lid] = xi;
  scan_val[lid] = run;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < WG; off <<= 1) {
    REAL v = scan_val[lid];
    if (lid >= off && scan_key[lid - off] == xi) v += scan_val[lid - off];
    barrier(CLK_LOCAL_MEM_FENCE);
    scan_val[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const REAL carry_in = lid > 0 ? scan_val[lid - 1] : 0;
  if (lid == WG - 1) carry[t] = scan_val[lid];  // the partial sum of row r1, added by fixup

  // Every work-item finished reading prod before the first barrier of the scan.
  local REAL* row_sum = prod;
  int xr = first_row;
  bool first = true;
  for (int u = 0; u < IPT; ++u) {
    if (ends >> u & 1u) {
      row_sum[xr++] = first ? ended[u] + carry_in : ended[u];
      first = false;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = lid; k < nr; k += WG) y[r0 + k] = spmv_axpby(alpha, row_sum[k], beta, y + r0 + k);
}

// Row R = coords[t + 1] gets the carries of the run of tiles t, t+1, ... that stop inside it;
// the first tile of the run adds them, in order, after the tile that ends R has written y[R].
kernel void spmv_merge_fixup(const uint rows, const uint tiles, global const int* restrict coords,
                             global const REAL* restrict carry, const REAL alpha, global REAL* restrict y) {
  const uint t = get_global_id(0);
  if (t >= tiles) return;
  const int r = coords[t + 1];
  if (r >= (int)rows || (t > 0 && coords[t] == r)) return;
  REAL s = 0;
  for (uint u = t; u < tiles && coords[u + 1] == r; ++u) s += carry[u];
  y[r] += alpha * s;
}
