// The scaling, splitting and accumulation kernels of the CUDA splitting-scheme GEMMs
// (src/backends/cuda/ozaki_variants.cpp, docs/ozaki.md); the low-precision products
// themselves are cuBLAS GEMMs. Compiled by nvcc (src/backends/cuda/ozaki_kernels.cu)
// and, in CI, by NVRTC (tests/test_cuda_nvrtc.cpp). The per-element arithmetic is
// kernels/common/ozaki.h, shared with the host emulation that validates these.
//
// Layouts: A as rows (m x kp) and B as columns (n x kp), both contiguous along k and
// zero-padded to kp (a multiple of 16), so that every product is cuBLAS's "TN" GEMM;
// a product P is row-major m x n (cuBLAS's column-major n x m). The slice kernels write
// `rows` rows of which the first `valid` come from X (the rest zero), so that the
// INT8 and half-precision GEMMs get dimensions in multiples of 16.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../../common/dfdd.h"
#include "../../common/ozaki.h"

namespace hetbench {
namespace ozk {

// Operand storage: 0 binary32, 1 binary64 (also DF @d64), 2 DF interleaved, 3 DF two planes.
__device__ inline double load(const void* src, int kind, unsigned long long i, unsigned long long count) {
  switch (kind) {
    case 0: return static_cast<const float*>(src)[i];
    case 1: return static_cast<const double*>(src)[i];
    case 2: {
      const float* w = static_cast<const float*>(src);
      return rn::add(static_cast<double>(w[2 * i]), static_cast<double>(w[2 * i + 1]));
    }
    default: {
      const float* w = static_cast<const float*>(src);
      return rn::add(static_cast<double>(w[i]), static_cast<double>(w[count + i]));
    }
  }
}

// dst[r * k + p] = element (r, p) of the stored operand at r * sr + p * sp.
__global__ void gather(const void* src, int kind, unsigned long long count, double* dst, int rows, int k,
                       long long sr, long long sp) {
  const unsigned long long total = static_cast<unsigned long long>(rows) * k;
  for (unsigned long long x = blockIdx.x * 1ull * blockDim.x + threadIdx.x; x < total; x += gridDim.x * 1ull * blockDim.x) {
    const long long r = static_cast<long long>(x / k), p = static_cast<long long>(x % k);
    dst[x] = load(src, kind, static_cast<unsigned long long>(r * sr + p * sp), count);
  }
}

// e[r] with max_p |X[r, p]| < 2^e[r]; one block of 256 threads per row.
__global__ void exponents(const double* X, int k, int* e) {
  __shared__ double s[256];
  const double* x = X + static_cast<unsigned long long>(blockIdx.x) * k;
  double m = 0;
  for (int p = threadIdx.x; p < k; p += blockDim.x) m = fmax(m, fabs(x[p]));
  s[threadIdx.x] = m;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) s[threadIdx.x] = fmax(s[threadIdx.x], s[threadIdx.x + h]);
    __syncthreads();
  }
  if (threadIdx.x == 0) e[blockIdx.x] = oz::exponent_above(s[0]);
}

// Scheme I: slices t = 0..s-1 of `bits` bits as FP16 (type 0) or BF16 (type 1), exact:
// integers below 2^bits <= 2^11 (FP16) or 2^8 (BF16). out[t][r * kp + p].
__global__ void fixed_slices(const double* X, const int* e, int rows, int valid, int k, int kp, int bits, int s,
                             int type, void* out) {
  const unsigned long long total = static_cast<unsigned long long>(rows) * kp;
  for (unsigned long long x = blockIdx.x * 1ull * blockDim.x + threadIdx.x; x < total; x += gridDim.x * 1ull * blockDim.x) {
    const int r = static_cast<int>(x / kp), p = static_cast<int>(x % kp);
    const bool in = p < k && r < valid;
    const double v = in ? X[static_cast<unsigned long long>(r) * k + p] : 0.0;
    for (int t = 0; t < s; ++t) {
      const float d = in ? static_cast<float>(oz::fixed_slice(v, e[r], bits, t)) : 0.0f;
      if (type == 0) static_cast<__half*>(out)[t * total + x] = __float2half_rn(d);
      else static_cast<__nv_bfloat16*>(out)[t * total + x] = __float2bfloat16_rn(d);
    }
  }
}

// Scheme II: balanced residues of the P-bit integers modulo mod[l], out[l][r * kp + p].
__global__ void residues(const double* X, const int* e, int rows, int valid, int k, int kp, int P, int L,
                         const int* mod, signed char* out) {
  const unsigned long long total = static_cast<unsigned long long>(rows) * kp;
  for (unsigned long long x = blockIdx.x * 1ull * blockDim.x + threadIdx.x; x < total; x += gridDim.x * 1ull * blockDim.x) {
    const int r = static_cast<int>(x / kp), p = static_cast<int>(x % kp);
    const double v =
        p < k && r < valid ? oz::crt_integer(X[static_cast<unsigned long long>(r) * k + p], e[r], P) : 0.0;
    for (int l = 0; l < L; ++l) out[l * total + x] = static_cast<signed char>(oz::crt_residue(v, mod[l]));
  }
}

// Split: terms t = 0..s-1 of `bits` bits as binary32 holding TF32 values (type 0) or as BF16 (type 1).
__global__ void split_terms(const double* X, int rows, int k, int kp, int bits, int s, int type, void* out) {
  const unsigned long long total = static_cast<unsigned long long>(rows) * kp;
  for (unsigned long long x = blockIdx.x * 1ull * blockDim.x + threadIdx.x; x < total; x += gridDim.x * 1ull * blockDim.x) {
    const int r = static_cast<int>(x / kp), p = static_cast<int>(x % kp);
    const float v = p < k ? static_cast<float>(X[static_cast<unsigned long long>(r) * k + p]) : 0.0f;
    for (int t = 0; t < s; ++t) {
      const float h = oz::split_term(v, bits, t);
      if (type == 0) static_cast<float*>(out)[t * total + x] = h;
      else static_cast<__nv_bfloat16*>(out)[t * total + x] = __float2bfloat16_rn(h);
    }
  }
}

// Scheme I: acc += 2^-shift P (exact scaling; one rounding per term).
__global__ void accumulate(const float* P, unsigned long long count, int shift, double* acc) {
  for (unsigned long long x = blockIdx.x * 1ull * blockDim.x + threadIdx.x; x < count; x += gridDim.x * 1ull * blockDim.x)
    acc[x] = rn::add(acc[x], ldexp(static_cast<double>(P[x]), -shift));
}

struct Out {
  void* C;
  int kind;  // 1 binary64 (D or DF @d64), 2 DF interleaved, 3 DF two planes
  int df;    // DF arithmetic for alpha, beta
  unsigned long long count;
  double alpha_hi, alpha_lo, beta_hi, beta_lo;
};

// C = alpha X + beta C, as the host emulation does (src/backends/host/host_gemm_ozaki.cpp).
__device__ inline void store(const Out& o, unsigned long long i, dw<double> x) {
  if (!o.df) {
    double* C = static_cast<double*>(o.C);
    const double ax = rn::mul(o.alpha_hi, to_double(x));
    C[i] = o.beta_hi == 0 ? ax : rn::add(ax, rn::mul(o.beta_hi, C[i]));
    return;
  }
  const df alpha{static_cast<float>(o.alpha_hi), static_cast<float>(o.alpha_lo)};
  const df beta{static_cast<float>(o.beta_hi), static_cast<float>(o.beta_lo)};
  df c;
  if (o.kind == 1) c = to_df(static_cast<double*>(o.C)[i]);
  else if (o.kind == 2) c = df{static_cast<float*>(o.C)[2 * i], static_cast<float*>(o.C)[2 * i + 1]};
  else c = df{static_cast<float*>(o.C)[i], static_cast<float*>(o.C)[o.count + i]};
  const df r = add_accurate(mul_accurate(alpha, oz::dd_to_df(x)), mul_accurate(beta, c));
  if (o.kind == 1) {
    static_cast<double*>(o.C)[i] = to_double(r);
  } else if (o.kind == 2) {
    static_cast<float*>(o.C)[2 * i] = r.hi;
    static_cast<float*>(o.C)[2 * i + 1] = r.lo;
  } else {
    static_cast<float*>(o.C)[i] = r.hi;
    static_cast<float*>(o.C)[o.count + i] = r.lo;
  }
}

// Scheme I: X_ij = 2^(ea_i + eb_j) acc_ij (acc row-major with leading dimension ld).
__global__ void finish_fixed(const double* acc, const int* ea, const int* eb, int m, int n, int ld, Out o) {
  const unsigned long long total = static_cast<unsigned long long>(m) * n;
  for (unsigned long long x = blockIdx.x * 1ull * blockDim.x + threadIdx.x; x < total; x += gridDim.x * 1ull * blockDim.x) {
    const unsigned long long i = x / n, j = x % n;
    store(o, x, dw<double>{ldexp(acc[i * ld + j], ea[i] + eb[j]), 0.0});
  }
}

// Scheme II: Garner on the L int32 products res[l][i * ld + j] (m x ld each), X scaled
// by 2^(ea_i + eb_j - 2P).
// res holds L products of mp x ld (m and n padded for the INT8 GEMMs), `plane` elements apart.
__global__ void finish_crt(const int* res, int L, const int* mod, const int* inv, int P, const int* ea, const int* eb,
                           int m, int n, int ld, unsigned long long plane, Out o) {
  const unsigned long long total = static_cast<unsigned long long>(m) * n;
  for (unsigned long long x = blockIdx.x * 1ull * blockDim.x + threadIdx.x; x < total; x += gridDim.x * 1ull * blockDim.x) {
    const unsigned long long i = x / n, j = x % n;
    int r[20];
    for (int l = 0; l < L; ++l) r[l] = res[l * plane + i * ld + j];
    const dw<double> v = oz::garner(r, mod, inv, L);
    const int s = ea[i] + eb[j] - 2 * P;
    store(o, x, dw<double>{ldexp(v.hi, s), ldexp(v.lo, s)});
  }
}

}  // namespace ozk
}  // namespace hetbench
