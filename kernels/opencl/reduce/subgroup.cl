// As tree.cl, but each sub-group adds its values with sub_group_reduce_add (the OpenCL
// counterpart of warp shuffles, cl_khr_subgroups) and only the sub-group sums go
// through local memory. PoCL's CPU device and NVIDIA's OpenCL do not offer the
// extension, so there the variant is skipped with the reason.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
kernel void reduce_subgroup(const uint n, global const REAL* restrict x, global REAL* restrict partial) {
  local REAL lb[WG];
  REAL s = reduce_thread(n, x);
  s = sub_group_reduce_add(s);
  const uint sg = get_sub_group_id(), nsg = get_num_sub_groups();
  if (get_sub_group_local_id() == 0) lb[sg] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) {
    REAL total = 0;
    for (uint k = 0; k < nsg; ++k) total += lb[k];
    partial[get_group_id(0)] = total;
  }
}
