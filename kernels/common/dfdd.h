// Double-word arithmetic, DF (pairs of binary32) and DD (pairs of binary64): the one
// source of the algorithms for the host (include/hetbench/dfdd.hpp includes this file),
// CUDA kernels and OpenCL kernels (kernel metadata lists "common/dfdd.h" first in
// "includes"). Algorithms, bounds and sources are in docs/precision.md.
//
// Every elementary operation is rounded once, in the order written; the algorithms fall
// apart when a compiler fuses or reassociates them. Hence the word operations RN_*:
//  * C++ host: plain operators (the build must keep -ffp-contract=off; dfdd.hpp has the
//    guards) and an optimisation fence on the Dekker split (RN_OPAQUE).
//  * CUDA (nvcc, NVRTC): __fadd_rn/__fmul_rn/__fmaf_rn and the double ones, which are
//    never contracted, so the default --fmad=true is safe.
//  * OpenCL C: plain operators under FP_CONTRACT OFF (OpenCL C contracts a*b+c by
//    default); every product that feeds an addition goes through an explicit fma().
//    Build without -cl-fast-relaxed-math, -cl-mad-enable, -cl-unsafe-math-optimizations
//    and -cl-denorms-are-zero.
//
// C++ gets templates over the word type in namespace hetbench (two_sum<float>, ...).
// OpenCL C has neither templates nor overloading: one program holds one instantiation,
// for the prelude's word type REAL, with names prefixed dw_ (dw_two_sum, ...) over
// REAL2 pairs (.x = hi, .y = lo).
#ifndef HETBENCH_DFDD_H
#define HETBENCH_DFDD_H

#if defined(__OPENCL_VERSION__)

#pragma OPENCL FP_CONTRACT OFF
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define DW_HAVE_DOUBLE 1
#endif
#define DW_TFN(ret) inline ret  // generic over the word type
#define DW_FN(ret) inline ret   // fixed types
#define DW_NAME(f) dw_##f
#define DW_W REAL
#define DW_OF(w) HB_CAT(w, 2)
#define DW_MAKE(w, h, l) ((DW_OF(w))((h), (l)))
#define DW_HI(v) (v).x
#define DW_LO(v) (v).y
#define RN_ADD(a, b) ((a) + (b))
#define RN_SUB(a, b) ((a) - (b))
#define RN_MUL(a, b) ((a) * (b))
#define RN_FMA(a, b, c) fma(a, b, c)
#define RN_OPAQUE(x) (x)
#define RN_TO_FLOAT(x) ((float)(x))

#else  // C++: host compilers, nvcc, NVRTC

#if defined(__CUDACC__)
#define HB_HD __host__ __device__ inline
#else
#define HB_HD inline
#endif
#define DW_HAVE_DOUBLE 1
#define DW_TFN(ret) template <class T> HB_HD ret
#define DW_FN(ret) HB_HD ret
#define DW_NAME(f) f
#define DW_W T
#define DW_OF(w) dw<w>
#define DW_MAKE(w, h, l) (dw<w>{(h), (l)})
#define DW_HI(v) (v).hi
#define DW_LO(v) (v).lo
#define RN_ADD(a, b) rn::add(a, b)
#define RN_SUB(a, b) rn::sub(a, b)
#define RN_MUL(a, b) rn::mul(a, b)
#define RN_FMA(a, b, c) rn::fma(a, b, c)
#define RN_OPAQUE(x) rn::opaque(x)
#define RN_TO_FLOAT(x) rn::to_float(x)

namespace hetbench {

// Unevaluated sum hi + lo with hi = RN(hi + lo), hence |lo| <= ulp(hi)/2.
template <class T>
struct dw {
  T hi, lo;
};
using df = dw<float>;
using dd = dw<double>;

// Each elementary operation rounded once, never fused with a neighbour.
namespace rn {
#if defined(__CUDA_ARCH__)
HB_HD float add(float a, float b) { return __fadd_rn(a, b); }
HB_HD float sub(float a, float b) { return __fsub_rn(a, b); }
HB_HD float mul(float a, float b) { return __fmul_rn(a, b); }
HB_HD float fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
HB_HD double add(double a, double b) { return __dadd_rn(a, b); }
HB_HD double sub(double a, double b) { return __dsub_rn(a, b); }
HB_HD double mul(double a, double b) { return __dmul_rn(a, b); }
HB_HD double fma(double a, double b, double c) { return __fma_rn(a, b, c); }
HB_HD float to_float(double a) { return __double2float_rn(a); }
#else
HB_HD float add(float a, float b) { return a + b; }
HB_HD float sub(float a, float b) { return a - b; }
HB_HD float mul(float a, float b) { return a * b; }
HB_HD float fma(float a, float b, float c) { return std::fma(a, b, c); }
HB_HD double add(double a, double b) { return a + b; }
HB_HD double sub(double a, double b) { return a - b; }
HB_HD double mul(double a, double b) { return a * b; }
HB_HD double fma(double a, double b, double c) { return std::fma(a, b, c); }
HB_HD float to_float(double a) { return static_cast<float>(a); }
#endif

// Makes x opaque to the optimiser so a product cannot be fused into the next
// subtraction even under -ffp-contract=fast (device code needs no fence).
template <class T>
HB_HD T opaque(T x) {
#if defined(__CUDA_ARCH__)
  return x;
#elif defined(__GNUC__) && defined(__x86_64__)
  asm("" : "+x"(x));
  return x;
#elif defined(__GNUC__) && defined(__aarch64__)
  asm("" : "+w"(x));
  return x;
#else
  volatile T v = x;
  return v;
#endif
}
}  // namespace rn

#endif  // language

#define DW DW_OF(DW_W)
#define DW_PAIR(h, l) DW_MAKE(DW_W, h, l)

// ---- error-free transformations -------------------------------------------------

// Knuth's TwoSum: s + e == a + b exactly, s = RN(a + b). 6 ops, no branch.
DW_TFN(DW) DW_NAME(two_sum)(DW_W a, DW_W b) {
  DW_W s = RN_ADD(a, b);
  DW_W bb = RN_SUB(s, a);
  DW_W e = RN_ADD(RN_SUB(a, RN_SUB(s, bb)), RN_SUB(b, bb));
  return DW_PAIR(s, e);
}

// Dekker's Fast2Sum: exact when exponent(a) >= exponent(b) (e.g. |a| >= |b|). 3 ops.
DW_TFN(DW) DW_NAME(fast_two_sum)(DW_W a, DW_W b) {
  DW_W s = RN_ADD(a, b);
  DW_W e = RN_SUB(b, RN_SUB(s, a));
  return DW_PAIR(s, e);
}

// p + e == a * b exactly (no underflow). 1 mul + 1 fma.
DW_TFN(DW) DW_NAME(two_prod)(DW_W a, DW_W b) {
  DW_W p = RN_MUL(a, b);
  DW_W e = RN_FMA(a, b, -p);
  return DW_PAIR(p, e);
}

// ---- addition -----------------------------------------------------------------------

// JMP 2017 Alg. 6 (AccurateDWPlusDW): rel. error <= 3u^2/(1-4u) < 3u^2 + 13u^3. 20 ops.
DW_TFN(DW) DW_NAME(add_accurate)(DW x, DW y) {
  DW s = DW_NAME(two_sum)(DW_HI(x), DW_HI(y));
  DW t = DW_NAME(two_sum)(DW_LO(x), DW_LO(y));
  DW_W c = RN_ADD(DW_LO(s), DW_HI(t));
  DW v = DW_NAME(fast_two_sum)(DW_HI(s), c);
  DW_W w = RN_ADD(DW_LO(t), DW_LO(v));
  return DW_NAME(fast_two_sum)(DW_HI(v), w);
}

// Mukunoki & Imamura's DFadd = JMP Alg. 5 (SloppyDWPlusDW), 11 ops: the two lo parts
// are added in one rounding, so cancellation of the hi parts exposes an O(u) error.
DW_TFN(DW) DW_NAME(add_sloppy)(DW x, DW y) {
  DW s = DW_NAME(two_sum)(DW_HI(x), DW_HI(y));
  DW_W v = RN_ADD(DW_LO(s), RN_ADD(DW_LO(x), DW_LO(y)));
  return DW_NAME(fast_two_sum)(DW_HI(s), v);
}

// ---- multiplication -----------------------------------------------------------------

// JMP 2017 Alg. 12 (DWTimesDW3, with FMA): rel. error <= 5u^2 as published; Muller &
// Rideau (TOMS 2022) later proved 4u^2. Validation uses 5u^2. 9 ops.
DW_TFN(DW) DW_NAME(mul_accurate)(DW x, DW y) {
  DW c = DW_NAME(two_prod)(DW_HI(x), DW_HI(y));
  DW_W tl0 = RN_MUL(DW_LO(x), DW_LO(y));
  DW_W tl1 = RN_FMA(DW_HI(x), DW_LO(y), tl0);
  DW_W cl2 = RN_FMA(DW_LO(x), DW_HI(y), tl1);
  DW_W cl3 = RN_ADD(DW_LO(c), cl2);
  return DW_NAME(fast_two_sum)(DW_HI(c), cl3);
}

// Mukunoki & Imamura's DFmul, 5 ops: hi is one fma over the cross terms, lo drops
// x.lo*y.lo. No published bound; its measured error is in docs/precision.md.
DW_TFN(DW) DW_NAME(mul_sloppy)(DW x, DW y) {
  DW_W v = RN_MUL(DW_HI(x), DW_LO(y));
  DW_W t = RN_FMA(DW_LO(x), DW_HI(y), v);
  DW_W hi = RN_FMA(DW_HI(x), DW_HI(y), t);
  DW_W e = RN_FMA(DW_HI(x), DW_HI(y), -hi);
  return DW_PAIR(hi, RN_ADD(e, t));
}

// JMP 2017 Alg. 9 (DWTimesFP3, with FMA): DW times one word, rel. error <= 2u^2. 6 ops.
DW_TFN(DW) DW_NAME(mul_word)(DW x, DW_W y) {
  DW c = DW_NAME(two_prod)(DW_HI(x), y);
  DW_W cl3 = RN_FMA(DW_LO(x), y, DW_LO(c));
  return DW_NAME(fast_two_sum)(DW_HI(c), cl3);
}

// ---- conversions (need binary64) ------------------------------------------------------
#if DW_HAVE_DOUBLE

// Dekker's split with 2^29+1 (Mukunoki & Imamura's double_to_cudfreal): h = d rounded
// to 24 bits, l = d - h exactly (<= 29 bits). Valid for |d| < 2^994. Contraction would
// turn both uses of t into fmas and give h = d, l = 0: hence the fence on the host.
DW_FN(DW_OF(double)) DW_NAME(dekker_split)(double d) {
  double t = RN_OPAQUE(RN_MUL(536870913.0, d));  // 2^29 + 1
  double h = RN_SUB(t, RN_SUB(t, d));
  return DW_MAKE(double, h, RN_SUB(d, h));
}

// double -> DF: hi exact (24 bits), lo = float(l) loses <= u|l|, so the relative error
// is < u^2 = 2^-48. hi overflows to inf near FLT_MAX and lo loses bits once
// |d| < 2^-102 (subnormal lo).
DW_FN(DW_OF(float)) DW_NAME(to_df)(double d) {
  DW_OF(double) s = DW_NAME(dekker_split)(d);
  return DW_MAKE(float, RN_TO_FLOAT(DW_HI(s)), RN_TO_FLOAT(DW_LO(s)));
}
DW_FN(DW_OF(double)) DW_NAME(to_dd)(double d) { return DW_MAKE(double, d, 0.0); }

// RN(hi + lo): correctly rounded, since a single addition of exact inputs.
DW_TFN(double) DW_NAME(to_double)(DW x) { return RN_ADD((double)DW_HI(x), (double)DW_LO(x)); }

#endif  // DW_HAVE_DOUBLE

#undef DW
#undef DW_PAIR

#if !defined(__OPENCL_VERSION__)
// ---- C++ only: variant selection and word-type overloads -------------------------------

// accurate: JMP 2017 Alg. 6 add, Alg. 12 mul. sloppy: Mukunoki & Imamura's DFadd/DFmul
// (QD's sloppy add); no bound for opposite-sign operands.
enum class dw_variant { accurate, sloppy };

template <dw_variant V = dw_variant::accurate, class T>
HB_HD dw<T> add(dw<T> x, dw<T> y) {
  if constexpr (V == dw_variant::accurate) {
    return add_accurate(x, y);
  } else {
    return add_sloppy(x, y);
  }
}

template <class T>
HB_HD dw<T> neg(dw<T> x) {
  return {-x.hi, -x.lo};
}

template <dw_variant V = dw_variant::accurate, class T>
HB_HD dw<T> sub(dw<T> x, dw<T> y) {
  return add<V>(x, neg(y));
}

template <dw_variant V = dw_variant::accurate, class T>
HB_HD dw<T> mul(dw<T> x, dw<T> y) {
  if constexpr (V == dw_variant::accurate) {
    return mul_accurate(x, y);
  } else {
    return mul_sloppy(x, y);
  }
}

template <class T>
HB_HD dw<T> mul(dw<T> x, T y) {
  return mul_word(x, y);
}

// a*b + c as mul then add of the same variant. accurate: |err| <= (5u^2 +
// 3u^2(1+5u^2)/(1-4u)) * (|ab| + |c|); relative to |ab+c| only without cancellation.
// sloppy: Mukunoki & Imamura's 16-operation DF multiply-add.
template <dw_variant V = dw_variant::accurate, class T>
HB_HD dw<T> mad(dw<T> a, dw<T> b, dw<T> c) {
  return add<V>(mul<V>(a, b), c);
}

HB_HD df to_df(float f) { return {f, 0.0f}; }

}  // namespace hetbench

// The spelling macros stay out of the host's namespace (OpenCL kernels may use them).
#undef DW_HAVE_DOUBLE
#undef DW_TFN
#undef DW_FN
#undef DW_NAME
#undef DW_W
#undef DW_OF
#undef DW_MAKE
#undef DW_HI
#undef DW_LO
#undef RN_ADD
#undef RN_SUB
#undef RN_MUL
#undef RN_FMA
#undef RN_OPAQUE
#undef RN_TO_FLOAT
#endif

#endif  // HETBENCH_DFDD_H
