// VW-wide vector loads over a grid-stride loop of WAVES work-groups per compute unit,
// a local-memory tree per work-group (group_sum), then a final pass over the partials.
// I32 adds as uint (wraps). Sub-group reductions (sub_group_reduce_add, the OpenCL
// counterpart of CUDA's warp shuffles) need cl_khr_subgroups: kernels/opencl/reduce/
// subgroup.cl requires it, and devices without it skip that variant with the reason.
kernel void reduce_tree(const uint n, global const REAL* restrict x, global REAL* restrict partial) {
  local REAL lb[WG];
  REAL s = reduce_thread(n, x);
  s = group_sum(s, lb, WG);
  if (get_local_id(0) == 0) partial[get_group_id(0)] = s;
}
