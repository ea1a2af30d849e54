// The scaling, splitting and accumulation kernels of the CUDA splitting-scheme GEMMs
// (src/backends/cuda/ozaki_variants.cpp, docs/ozaki.md); the low-precision products
// themselves are cuBLAS GEMMs. Compiled by nvcc (src/backends/cuda/ozaki_kernels.cu)
// and, in CI, by NVRTC (tests/backends/test_cuda_nvrtc.cpp). The per-element arithmetic is
// kernels/common/ozaki.h, shared with the host emulation that validates these.
//
// Layouts: A as rows (m x kp) and B as columns (n x kp), both contiguous along k and
// zero-padded to kp (a multiple of 16), so that every product is cuBLAS's "TN" GEMM;
// a product P is row-major m x n (cuBLAS's column-major n x m). The split kernels read
// the operands as stored (Operand) and write `rows` rows of which the first x.rows come
// from X (the rest zero), so that the INT8 and half-precision GEMMs get dimensions in
// multiples of 16. docs/ozaki.md ("Kernels") gives the design and the expected times.
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

using oz::Operand;
__device__ inline double at(const Operand& x, int r, int p) {
  return load(x.src, x.kind, static_cast<unsigned long long>(r * x.sr + p * x.sp), x.count);
}

// Row maxima, first pass: partial[c * rows + r] = max |X[r, p]| over p in chunk c
// (blockIdx.y) for the 32 rows of blockIdx.x, reading along the stored contiguous
// direction: rows contiguous, a warp walks a row and reduces by shuffles; columns
// contiguous, a lane owns a row and the 8 warps' maxima meet in shared memory. Enough
// chunks give every SM blocks even where rows are few; no atomics.
__global__ void __launch_bounds__(256) row_max(Operand x, int chunk, double* partial) {
  __shared__ double s[8][33];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, r0 = blockIdx.x * 32;
  const int pb = blockIdx.y * chunk, pe = min(x.k, pb + chunk);
  double* out = partial + static_cast<unsigned long long>(blockIdx.y) * x.rows;
  if (x.sp == 1) {
    for (int rr = w; rr < 32 && r0 + rr < x.rows; rr += 8) {
      double m = 0;
#pragma unroll 4
      for (int p = pb + lane; p < pe; p += 32) m = fmax(m, fabs(at(x, r0 + rr, p)));
      for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
      if (lane == 0) out[r0 + rr] = m;
    }
  } else {
    const int r = r0 + lane;
    double m = 0;
    if (r < x.rows) {
#pragma unroll 4
      for (int p = pb + w; p < pe; p += 8) m = fmax(m, fabs(at(x, r, p)));
    }
    s[w][lane] = m;
    __syncthreads();
    if (w == 0 && r < x.rows) {
      for (int i = 1; i < 8; ++i) m = fmax(m, s[i][lane]);
      out[r] = m;
    }
  }
}

// Second pass: e[r] with max_p |X[r, p]| < 2^e[r].
__global__ void row_exponents(const double* partial, int chunks, int rows, int* e) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double m = 0;
  for (int c = 0; c < chunks; ++c) m = fmax(m, partial[static_cast<unsigned long long>(c) * rows + r]);
  e[r] = oz::exponent_above(m);
}

// The split kernels' common frame, one pass over the operand: a block stages a tile of
// 32 rows x 128 p in shared memory, loaded along whichever direction is contiguous in
// storage (the transpose of B's columns, and of A with ta, happens here), then calls
// emit(r, p, v) with 4 consecutive elements v of row r (r < rows, p < kp; rows >= x.rows
// and p >= k are zeros), so that every plane is written in contiguous 4-element pieces
// per thread: a warp stores 128 (INT8), 256 (FP16/BF16) or 512 (binary32) contiguous
// bytes per plane and row.
constexpr int kTileRows = 32, kTileP = 128;
template <class Emit>
__device__ inline void tiled(const Operand& x, int rows, int kp, Emit emit) {
  __shared__ __align__(16) double t[kTileRows][kTileP + 2];  // +2: 16-byte rows, few bank conflicts
  const int r0 = blockIdx.y * kTileRows, p0 = blockIdx.x * kTileP;
  const bool along_p = x.sp == 1;
  for (int i = threadIdx.x; i < kTileRows * kTileP; i += blockDim.x) {
    const int rr = along_p ? i / kTileP : i % kTileRows, pp = along_p ? i % kTileP : i / kTileRows;
    const int r = r0 + rr, p = p0 + pp;
    t[rr][pp] = r < x.rows && p < x.k ? at(x, r, p) : 0.0;
  }
  __syncthreads();
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, p = p0 + 4 * lane;
  if (p >= kp) return;
  for (int rr = w; rr < kTileRows && r0 + rr < rows; rr += 8) {
    const double2 a = *reinterpret_cast<const double2*>(&t[rr][4 * lane]);
    const double2 b = *reinterpret_cast<const double2*>(&t[rr][4 * lane + 2]);
    const double v[4] = {a.x, a.y, b.x, b.y};
    emit(r0 + rr, p, v);
  }
}

// Scheme I: slices t = 0..s-1 of `bits` bits as FP16 (type 0) or BF16 (type 1), exact:
// integers below 2^bits <= 2^11 (FP16) or 2^8 (BF16); slice t of row r at
// out + (t * plane + r * kp + p) elements. oz::fixed_slice's steps, each slice from the
// previous remainder (not recomputed from the start), so bit for bit the same.
__global__ void __launch_bounds__(256) fixed_split(Operand x, const int* e, int rows, int kp, int bits, int s, int type,
                                                   void* out, unsigned long long plane) {
  tiled(x, rows, kp, [&](int r, int p, const double (&v)[4]) {
    double y[4];
    const int er = r < x.rows ? e[r] : 0;
#pragma unroll
    for (int q = 0; q < 4; ++q) y[q] = ldexp(v[q], -er);
    const unsigned long long o = static_cast<unsigned long long>(r) * kp + p;
    for (int t = 0; t < s; ++t) {
      float d[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        y[q] = ldexp(y[q], bits);
        const double h = trunc(y[q]);
        y[q] = rn::sub(y[q], h);
        d[q] = static_cast<float>(h);
      }
      if (type == 0) {
        __half2* dst = reinterpret_cast<__half2*>(static_cast<__half*>(out) + t * plane + o);
        dst[0] = __floats2half2_rn(d[0], d[1]);
        dst[1] = __floats2half2_rn(d[2], d[3]);
      } else {
        __nv_bfloat162* dst = reinterpret_cast<__nv_bfloat162*>(static_cast<__nv_bfloat16*>(out) + t * plane + o);
        dst[0] = __floats2bfloat162_rn(d[0], d[1]);
        dst[1] = __floats2bfloat162_rn(d[2], d[3]);
      }
    }
  });
}

// Scheme II: each thread turns its 4 elements into P-bit integers and, for every
// modulus, 4 balanced residues packed into one 32-bit store (plane l at out + l * plane).
// Narrow (every |v| < 2^51, the usual case: P <= 51) is 3 binary64 operations per value
// and modulus.
template <bool Narrow>
__device__ inline void crt_store(const double (&v)[4], const oz::CrtConst& c, signed char* o, unsigned long long plane) {
  double vm[4];
#pragma unroll
  for (int q = 0; q < 4; ++q) vm[q] = rn::add(v[q], oz::kMagic);
#pragma unroll
  for (int l = 0; l < oz::kMaxModuli; ++l) {
    if (l >= c.L) break;
    int d[4];
#pragma unroll
    for (int q = 0; q < 4; ++q)
      d[q] = Narrow ? oz::crt_residue_narrow(v[q], vm[q], c.m[l], c.minv[l])
                    : oz::crt_residue_wide(v[q], c.m[l], c.minv[l], c.mod[l]);
    *reinterpret_cast<int*>(o + l * plane) =
        __byte_perm(__byte_perm(d[0], d[1], 0x0040), __byte_perm(d[2], d[3], 0x0040), 0x5410);
  }
}
__global__ void __launch_bounds__(256) crt_split(Operand x, const int* e, int rows, int kp, int P, oz::CrtConst c,
                                                 signed char* out, unsigned long long plane) {
  tiled(x, rows, kp, [&](int r, int p, const double (&x4)[4]) {
    double s1 = 1, s2 = 1;
    if (r < x.rows) oz::crt_scales(e[r], P, s1, s2);
    double v[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) v[q] = oz::crt_integer(x4[q], s1, s2);
    signed char* o = out + static_cast<unsigned long long>(r) * kp + p;
    if (fmax(fmax(fabs(v[0]), fabs(v[1])), fmax(fabs(v[2]), fabs(v[3]))) < 0x1p51) crt_store<true>(v, c, o, plane);
    else crt_store<false>(v, c, o, plane);
  });
}

// Split: terms t = 0..s-1 of `bits` bits as binary32 holding TF32 values (type 0) or as
// BF16 (type 1); oz::split_term's steps, each term from the previous remainder.
__global__ void __launch_bounds__(256) float_split(Operand x, int rows, int kp, int bits, int s, int type, void* out,
                                                   unsigned long long plane) {
  tiled(x, rows, kp, [&](int r, int p, const double (&v)[4]) {
    float y[4], h[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      y[q] = static_cast<float>(v[q]);
      h[q] = oz::round_to_bits(y[q], bits);
    }
    const unsigned long long o = static_cast<unsigned long long>(r) * kp + p;
    for (int t = 0; t < s; ++t) {
      if (t > 0) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          y[q] = rn::sub(y[q], h[q]);
          h[q] = oz::round_to_bits(y[q], bits);
        }
      }
      if (type == 0) {
        *reinterpret_cast<float4*>(static_cast<float*>(out) + t * plane + o) = make_float4(h[0], h[1], h[2], h[3]);
      } else {
        __nv_bfloat162* dst = reinterpret_cast<__nv_bfloat162*>(static_cast<__nv_bfloat16*>(out) + t * plane + o);
        dst[0] = __floats2bfloat162_rn(h[0], h[1]);
        dst[1] = __floats2bfloat162_rn(h[2], h[3]);
      }
    }
  });
}

// Scheme I: acc += 2^-shift P_t for the terms t = 0..terms-1 of one diagonal (P_t at
// P + t * count), in t order: the same roundings as one pass per GEMM, but acc is read
// and written once per diagonal instead of once per GEMM.
__global__ void accumulate(const float* P, unsigned long long count, int terms, int shift, double* acc) {
  for (unsigned long long x = blockIdx.x * 1ull * blockDim.x + threadIdx.x; x < count; x += gridDim.x * 1ull * blockDim.x) {
    double a = acc[x];
    for (int t = 0; t < terms; ++t) a = rn::add(a, ldexp(static_cast<double>(P[t * count + x]), -shift));
    acc[x] = a;
  }
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

// Scheme I: X_ij = 2^(ea_i + eb_j) acc_ij (acc row-major with leading dimension ld); row
// blockIdx.y (and every gridDim.y-th after it), column j.
__global__ void finish_fixed(const double* acc, const int* ea, const int* eb, int m, int n, int ld, Out o) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  for (int i = blockIdx.y; i < m; i += gridDim.y)
    store(o, static_cast<unsigned long long>(i) * n + j,
          dw<double>{ldexp(acc[static_cast<unsigned long long>(i) * ld + j], ea[i] + eb[j]), 0.0});
}

// Scheme II finish: one thread per element of C (row blockIdx.y, column j), its L int32
// products loaded up front (plane l at res + l * plane, row i at i * ld; each load
// coalesced along j) and reconstructed by the CRT sum of W words (oz::crt_reconstruct:
// about 7 binary64 operations per modulus, no integer division), X scaled by
// 2^(ea_i + eb_j - 2P).
template <int W>
__global__ void __launch_bounds__(256) crt_finish(const int* res, unsigned long long plane, int ld, oz::CrtConst c,
                                                  int P, const int* ea, const int* eb, int m, int n, Out o) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const int ebj = eb[j];
  for (int i = blockIdx.y; i < m; i += gridDim.y) {
    const int* at = res + static_cast<unsigned long long>(i) * ld + j;
    int R[oz::kMaxModuli];
#pragma unroll
    for (int l = 0; l < oz::kMaxModuli; ++l) R[l] = l < c.L ? __ldcs(at + l * plane) : 0;
    const dw<double> v = oz::crt_reconstruct<W>(R, c);
    const int s = ea[i] + ebj - 2 * P;
    store(o, static_cast<unsigned long long>(i) * n + j, dw<double>{ldexp(v.hi, s), ldexp(v.lo, s)});
  }
}
template __global__ void crt_finish<1>(const int*, unsigned long long, int, oz::CrtConst, int, const int*, const int*,
                                       int, int, Out);
template __global__ void crt_finish<2>(const int*, unsigned long long, int, oz::CrtConst, int, const int*, const int*,
                                       int, int, Out);
template __global__ void crt_finish<3>(const int*, unsigned long long, int, oz::CrtConst, int, const int*, const int*,
                                       int, int, Out);
template __global__ void crt_finish<4>(const int*, unsigned long long, int, oz::CrtConst, int, const int*, const int*,
                                       int, int, Out);

}  // namespace ozk
}  // namespace hetbench
