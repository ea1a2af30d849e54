// Coronado-Barrientos et al.'s spmv0 generalised: TPR work-items per row (a power of two up to WG) stride
// over it, then a local-memory tree adds their partial sums; a work-group takes WG / TPR
// consecutive rows. Without subgroups (PoCL, NVIDIA OpenCL) local memory is the only way
// to combine lanes. The loop over row blocks is uniform across the work-group, so the
// barriers inside it are reached by every work-item.
kernel void spmv_vector(const uint rows, global const int* restrict row_ptr, global const int* restrict col,
                        global const REAL* restrict val, global const REAL* restrict x, const REAL alpha,
                        const REAL beta, global REAL* restrict y) {
  local REAL part[WG];
  const uint lid = get_local_id(0);
  const uint lane = lid % TPR;
  const uint rows_per_group = WG / TPR;
  for (uint base = get_group_id(0) * rows_per_group; base < rows; base += get_num_groups(0) * rows_per_group) {
    const uint r = base + lid / TPR;
    REAL s = 0;
    if (r < rows) {
      const int end = row_ptr[r + 1];
      for (int j = row_ptr[r] + (int)lane; j < end; j += TPR) s += val[j] * x[col[j]];
    }
    part[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = TPR / 2; off > 0; off >>= 1) {
      if (lane < off) part[lid] += part[lid + off];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    // Only this work-item writes part[lid] again, so no barrier is needed before the next block.
    if (lane == 0 && r < rows) y[r] = spmv_axpby(alpha, part[lid], beta, y + r);
  }
}
