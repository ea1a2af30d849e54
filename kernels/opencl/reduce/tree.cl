// VW-wide vector loads over a grid-stride loop of WAVES work-groups per compute unit,
// a local-memory tree per work-group (group_sum), then a final pass over the partials.
// I32 adds as uint (wraps). Sub-group reductions (sub_group_reduce_add, the OpenCL
// counterpart of CUDA's warp shuffles) need cl_khr_subgroups: kernels/opencl/reduce/
// subgroup.cl requires it, and devices without it skip that variant with the reason.
kernel void reduce_tree(const uint n, global const REAL* restrict x, global REAL* restrict partial) {
  local REAL lb[WG];
  const uint gid = get_global_id(0), stride = get_global_size(0), nv = n / VW;
  realv acc = (realv)(0);
  for (uint i = gid; i < nv; i += stride) acc += LOADV(i, x);
  REAL s = HSUM(acc);
  const uint t = nv * VW + gid;
  if (t < n) s += x[t];
  s = group_sum(s, lb, WG);
  if (get_local_id(0) == 0) partial[get_group_id(0)] = s;
}
