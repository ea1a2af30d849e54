// FMA ceiling: work-item i advances the EPT independent chains of elements i*EPT ..
// i*EPT+EPT-1 together, one step at a time, so each step issues EPT independent
// multiply-adds (latency hidden within the work-item as well as across work-items).
// x*b + c with FP_CONTRACT ON: a fused multiply-add where the device has one, and no
// slow software fma() where it has not; the op's error bound covers both.
#pragma OPENCL FP_CONTRACT ON
kernel void peak_fma(const uint n, const REAL b, const REAL c, const int iters, global const REAL* restrict a,
                     global REAL* restrict out) {
  const size_t base = get_global_id(0) * (size_t)EPT;
  if (base >= n) return;
  if (base + EPT <= n) {
    REAL x[EPT];
#pragma unroll
    for (int j = 0; j < EPT; ++j) x[j] = a[base + j];
    for (int k = 0; k < iters; ++k) {
#pragma unroll
      for (int j = 0; j < EPT; ++j) x[j] = x[j] * b + c;
    }
#pragma unroll
    for (int j = 0; j < EPT; ++j) out[base + j] = x[j];
  } else {
    // The last, partial block (n not a multiple of EPT): one chain at a time.
    for (size_t i = base; i < n; ++i) {
      REAL x = a[i];
      for (int k = 0; k < iters; ++k) x = x * b + c;
      out[i] = x;
    }
  }
}
