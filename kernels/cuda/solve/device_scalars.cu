// The device-scalar operations of the solvers' operator interface (src/solve/
// variant_ops.cpp, docs/solvers.md "Device scalars"): no op variant, built once per solve
// operator after kernels/cuda/common/vec16.cuh. The axpy is axpy/vec16.cu with its
// coefficient read from device memory (the same hb_axpy16 arithmetic), so the CG that
// keeps its scalars on the device moves the same bytes per kernel as the one that does not.

// r = (sign * (num / den)) * x + y; r = y once the stop flag is set.
extern "C" __global__ void __launch_bounds__(WG)
    hb_axpy_ratio(const unsigned n, const REAL sign, const REAL* __restrict__ num, const REAL* __restrict__ den,
                  const int* __restrict__ stop, const REAL* __restrict__ x, const REAL* __restrict__ y,
                  REAL* __restrict__ r) {
  const bool frozen = stop[0] != 0;
  const REAL a = frozen ? REAL(0) : sign * (num[0] / den[0]);
  const size_t nv = n / VEC16;
  const REALV16* __restrict__ xv = reinterpret_cast<const REALV16*>(x);
  const REALV16* __restrict__ yv = reinterpret_cast<const REALV16*>(y);
  REALV16* __restrict__ rv = reinterpret_cast<REALV16*>(r);
  const size_t stride = (size_t)gridDim.x * WG;
  const size_t tid = (size_t)blockIdx.x * WG + threadIdx.x;
  const size_t t = nv * VEC16 + tid;  // scalar tail: fewer than VEC16 elements
  if (frozen) {
    for (size_t i = tid; i < nv; i += stride) rv[i] = yv[i];
    if (t < n) r[t] = y[t];
    return;
  }
  size_t i = tid;
  for (; i + (UNR - 1) * stride < nv; i += UNR * stride) {
    REALV16 vx[UNR], vy[UNR];
#pragma unroll
    for (int u = 0; u < UNR; ++u) {
      vx[u] = xv[i + u * stride];
      vy[u] = yv[i + u * stride];
    }
#pragma unroll
    for (int u = 0; u < UNR; ++u) rv[i + u * stride] = hb_axpy16(a, vx[u], vy[u]);
  }
  for (; i < nv; i += stride) rv[i] = hb_axpy16(a, xv[i], yv[i]);
  if (t < n) r[t] = a * x[t] + y[t];
}

// Up to three watches (kind < 0: unused): log[slot] = s, and the stop flag set when the
// guard fails (kind 0: !(s > 0); kind 1: s not finite or sqrt(s) <= bound), as the host
// defaults in src/api/solver_ops.cpp test them (sqrt is correctly rounded in double).
__device__ void hb_watch_one(const REAL* s, const int kind, const double bound, const unsigned slot, double* log,
                             int* stop) {
  if (kind < 0) return;
  const double v = (double)s[0];
  log[slot] = v;
  const bool fail = kind == 0 ? !(v > 0.0) : (!isfinite(v) || sqrt(v) <= bound);
  if (fail) stop[0] = 1;
}

extern "C" __global__ void hb_watch(const REAL* s0, const int k0, const double b0, const unsigned slot0,  //
                                    const REAL* s1, const int k1, const double b1, const unsigned slot1,  //
                                    const REAL* s2, const int k2, const double b2, const unsigned slot2,  //
                                    double* log, int* stop) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  hb_watch_one(s0, k0, b0, slot0, log, stop);
  hb_watch_one(s1, k1, b1, slot1, log, stop);
  hb_watch_one(s2, k2, b2, slot2, log, stop);
}
