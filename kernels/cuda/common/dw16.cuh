// Double-word (DF, DD) operands in chunks of VEC16 elements (4 DF or 2 DD), two 16-byte
// loads per operand whatever the storage. The arithmetic is common/dfdd.h
// (pasted before this file), whose __fadd_rn/__fmul_rn/__fma_rn intrinsics are never
// contracted, so NVRTC's default --fmad=true leaves the error-free transformations intact.
//  AoS (SOA == 0): chunk c is words [2*VEC16*c, 2*VEC16*(c+1)) = two REALV16 vectors of
//    (hi, lo) pairs.
//  SoA (SOA == 1): chunk c is vector c of the hi plane (words [0, n)) and vector c of the
//    lo plane (words [n, 2n)). The lo plane is 16-byte aligned only when n % VEC16 == 0
//    (LO_ALIGNED); otherwise its words are loaded and stored one by one.
typedef hetbench::dw<REAL> hb_dw;

struct hb_chunk {
  hb_dw e[VEC16];
};

// Word k of a 16-byte vector (k a compile-time constant after unrolling).
__device__ __forceinline__ float hb_word(const float4& v, int k) { return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w; }
__device__ __forceinline__ double hb_word(const double2& v, int k) { return k == 0 ? v.x : v.y; }
__device__ __forceinline__ float4 hb_vec(const float* w) { return make_float4(w[0], w[1], w[2], w[3]); }
__device__ __forceinline__ double2 hb_vec(const double* w) { return make_double2(w[0], w[1]); }

__device__ __forceinline__ hb_chunk hb_load_chunk(const REAL* __restrict__ p, const size_t n, const size_t c) {
  const REALV16* __restrict__ pv = reinterpret_cast<const REALV16*>(p);
  hb_chunk ch;
#if SOA
  const REALV16 h = pv[c];
#if LO_ALIGNED
  const REALV16 l = reinterpret_cast<const REALV16*>(p + n)[c];
#pragma unroll
  for (int k = 0; k < VEC16; ++k) ch.e[k] = hb_dw{hb_word(h, k), hb_word(l, k)};
#else
#pragma unroll
  for (int k = 0; k < VEC16; ++k) ch.e[k] = hb_dw{hb_word(h, k), p[n + c * VEC16 + k]};
#endif
#else
  const REALV16 v0 = pv[2 * c], v1 = pv[2 * c + 1];
#pragma unroll
  for (int k = 0; k < VEC16 / 2; ++k) {
    ch.e[k] = hb_dw{hb_word(v0, 2 * k), hb_word(v0, 2 * k + 1)};
    ch.e[k + VEC16 / 2] = hb_dw{hb_word(v1, 2 * k), hb_word(v1, 2 * k + 1)};
  }
#endif
  return ch;
}

__device__ __forceinline__ void hb_store_chunk(REAL* __restrict__ p, const size_t n, const size_t c,
                                               const hb_chunk& ch) {
  REALV16* __restrict__ pv = reinterpret_cast<REALV16*>(p);
  REAL hi[VEC16], lo[VEC16];
#pragma unroll
  for (int k = 0; k < VEC16; ++k) {
    hi[k] = ch.e[k].hi;
    lo[k] = ch.e[k].lo;
  }
#if SOA
  pv[c] = hb_vec(hi);
#if LO_ALIGNED
  reinterpret_cast<REALV16*>(p + n)[c] = hb_vec(lo);
#else
#pragma unroll
  for (int k = 0; k < VEC16; ++k) p[n + c * VEC16 + k] = lo[k];
#endif
#else
  REAL w[2 * VEC16];
#pragma unroll
  for (int k = 0; k < VEC16; ++k) {
    w[2 * k] = hi[k];
    w[2 * k + 1] = lo[k];
  }
  pv[2 * c] = hb_vec(w);
  pv[2 * c + 1] = hb_vec(w + VEC16);
#endif
}

// Element i (the tail of fewer than VEC16 elements; SpMV's gathered elements): in AoS one
// 8- or 16-byte access (float2, double2), in SoA one word from each plane.
__device__ __forceinline__ hb_dw hb_load_elem(const REAL* __restrict__ p, const size_t n, const size_t i) {
#if SOA
  return hb_dw{p[i], p[n + i]};
#else
  const REAL2 v = reinterpret_cast<const REAL2*>(p)[i];
  return hb_dw{v.x, v.y};
#endif
}

// The same through the read-only data path (__ldg), for an operand the kernel only reads:
// x of the double-word SpMV kernels (dw.cu, dw_merge.cu).
__device__ __forceinline__ hb_dw hb_ldg_elem(const REAL* __restrict__ p, const unsigned n, const unsigned i) {
#if SOA
  return hb_dw{__ldg(p + i), __ldg(p + (size_t)n + i)};
#else
  const REAL2 v = __ldg(reinterpret_cast<const REAL2*>(p) + i);
  return hb_dw{v.x, v.y};
#endif
}

__device__ __forceinline__ void hb_store_elem(REAL* __restrict__ p, const size_t n, const size_t i, const hb_dw v) {
#if SOA
  p[i] = v.hi;
  p[n + i] = v.lo;
#else
  REAL2 w;
  w.x = v.hi;
  w.y = v.lo;
  reinterpret_cast<REAL2*>(p)[i] = w;
#endif
}

// The accurate operations the ops' error bounds assume (docs/validation.md).
__device__ __forceinline__ hb_dw hb_mad(const hb_dw a, const hb_dw b, const hb_dw c) {
  return hetbench::add_accurate(hetbench::mul_accurate(a, b), c);
}
