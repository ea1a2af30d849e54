// As tree.cl, but each sub-group combines its values with sub_group_reduce_add (or
// _max: the OpenCL counterparts of warp shuffles, cl_khr_subgroups) and only the
// sub-group results go through local memory. PoCL's CPU device and NVIDIA's OpenCL do
// not offer the extension, so there the variant is skipped with the reason.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#if FN != 3
#define SG_RED(v) sub_group_reduce_add(v)
#elif defined(HB_PREC_I32)
#define SG_RED(v) as_uint(sub_group_reduce_max(as_int(v)))
#else
#define SG_RED(v) sub_group_reduce_max(v)
#endif
kernel void reduce_subgroup(const uint n, global const REAL* restrict x, global REAL* restrict partial) {
  local REAL lb[WG];
  REAL s = SG_RED(reduce_thread(n, x));
  const uint sg = get_sub_group_id(), nsg = get_num_sub_groups();
  if (get_sub_group_local_id() == 0) lb[sg] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) {
    REAL total = lb[0];
    for (uint k = 1; k < nsg; ++k) total = HB_RED(total, lb[k]);
    partial[get_group_id(0)] = total;
  }
}
