// Single-launch dot: dot_vec's VW-wide loads over a grid of WAVES work-groups per compute
// unit and its local tree, then the last work-group to finish adds the partial sums, so
// that the whole operation is one kernel (what one T1 tuning problem can describe, and
// one launch less). Each group publishes its partial and fences before drawing a ticket;
// the group that draws the last one reads every partial with volatile loads (past any
// cache a writer's fence does not reach) and resets the ticket for the next run.
// The ticket is the first four bytes of a zero-filled buffer of REAL, read as a uint: a
// T1 file for Kernel Tuner 1.5 can only ask for vectors of float, and its zero fill is
// the zero ticket (docs/interop.md).
kernel void dot_onepass(const uint n, global const REAL* restrict x, global const REAL* restrict y,
                        global REAL* partial, global REAL* ticket, global REAL* result) {
  local REAL lb[WG];
  local int last;
  const uint gid = get_global_id(0);
  const uint stride = get_global_size(0);
  const uint nv = n / VW;
  realv acc = (realv)(0);
  for (uint i = gid; i < nv; i += stride) acc += LOADV(i, x) * LOADV(i, y);
  REAL s = HSUM(acc);
  const uint t = nv * VW + gid;
  if (t < n) s += x[t] * y[t];
  s = group_sum(s, lb, WG);
  const uint groups = get_num_groups(0);
  if (get_local_id(0) == 0) {
    partial[get_group_id(0)] = s;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    last = atomic_inc((volatile global uint*)ticket) == groups - 1;
  }
  // Also ends every work-item's read of lb[0] before the second tree writes lb.
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!last) return;
  REAL total = 0;
  for (uint g = get_local_id(0); g < groups; g += WG) total += ((volatile global REAL*)partial)[g];
  total = group_sum(total, lb, WG);
  if (get_local_id(0) == 0) {
    result[0] = total;
    *(volatile global uint*)ticket = 0;
  }
}
