// The device-scalar operations of the solvers' operator interface (src/solve/
// variant_ops.cpp, docs/solvers.md "Device scalars"): no op variant, built once per solve
// operator after kernels/opencl/common/vector.cl. The axpy repeats axpy/vec.cl's
// arithmetic lane for lane (a * x + y, VW-wide), so that a solve gives the same iterates
// as with the coefficient passed from the host.

// r = (sign * (num / den)) * x + y; r = y once the stop flag is set.
kernel void hb_axpy_ratio(const uint n, const REAL sign, global const REAL* restrict num,
                          global const REAL* restrict den, global const int* restrict stop,
                          global const REAL* restrict x, global const REAL* restrict y, global REAL* restrict r) {
  const uint gid = get_global_id(0);
  const uint stride = get_global_size(0);
  const uint nv = n / VW;
  const uint t = nv * VW + gid;
  if (stop[0]) {
    for (uint i = gid; i < nv; i += stride) STOREV(LOADV(i, y), i, r);
    if (t < n) r[t] = y[t];
    return;
  }
  const REAL a = sign * (num[0] / den[0]);
  for (uint i = gid; i < nv; i += stride) STOREV(a * LOADV(i, x) + LOADV(i, y), i, r);
  if (t < n) r[t] = a * x[t] + y[t];
}

// Up to three watches (kind < 0: unused): log[slot] = s, and the stop flag set when the
// guard fails (kind 0: !(s > 0); kind 1: s not finite or sqrt(s) <= bound), as the host
// defaults in src/api/solver_ops.cpp test them (sqrt is correctly rounded in double).
void hb_watch_one(global const REAL* s, const int kind, const double bound, const uint slot, global double* log,
                  global int* stop) {
  if (kind < 0) return;
  const double v = (double)s[0];
  log[slot] = v;
  const int fail = kind == 0 ? !(v > 0.0) : (!isfinite(v) || sqrt(v) <= bound);
  if (fail) stop[0] = 1;
}

kernel void hb_watch(global const REAL* s0, const int k0, const double b0, const uint slot0,  //
                     global const REAL* s1, const int k1, const double b1, const uint slot1,  //
                     global const REAL* s2, const int k2, const double b2, const uint slot2,  //
                     global double* log, global int* stop) {
  if (get_global_id(0) != 0) return;
  hb_watch_one(s0, k0, b0, slot0, log, stop);
  hb_watch_one(s1, k1, b1, slot1, log, stop);
  hb_watch_one(s2, k2, b2, slot2, log, stop);
}
