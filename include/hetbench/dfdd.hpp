// Double-word arithmetic: DF (pair of binary32) and DD (pair of binary64).
// One header for host C++20 and CUDA device code. Algorithms, bounds and
// sources are in docs/precision.md; kernels/opencl/include/dfdd.cl mirrors it.
//
// Build requirements (the algorithms rely on every operation being rounded
// exactly once, in the order written):
//  * Host: compile with -ffp-contract=off. GCC's ISO modes (-std=c++20, which
//    CMake uses) already default to off; -std=gnu++20 defaults to "fast".
//    Contraction would fuse the product and subtraction of Dekker's split, so
//    that split is also fenced with an optimisation barrier (hb_opaque), and
//    every other product here already goes through an explicit fma. The
//    fallback is still the flag, not the fence.
//  * Never -ffast-math (or -fassociative-math / -funsafe-math-optimizations):
//    reassociation lets the compiler prove the error term of two_sum,
//    (a - (s - bb)) + (b - bb), equal to zero, so every lo becomes 0 and DF/DD
//    silently degrade to plain float/double; -ffinite-math-only and
//    -fno-signed-zeros are harmless to the algebra but -freciprocal-math and
//    flush-to-zero (-ffast-math links crtfastmath.o, which sets FTZ/DAZ) lose
//    the subnormal lo parts near underflow. __FAST_MATH__ is an #error below.
//  * x87 excess precision (FLT_EVAL_METHOD != 0) breaks two_sum: #error below.
//  * CUDA device code uses __fadd_rn/__fmul_rn/__fmaf_rn (and the double ones),
//    which nvcc never contracts, so --fmad=true (the default) is safe.
//    --use_fast_math implies -ftz=true: binary32 subnormals are flushed, so DF
//    lo parts are lost below about 2^-102 (DD is unaffected). nvcc defines no
//    macro for it, so this cannot be an #error: do not use it for DF kernels.
//  * dfdd_selfcheck() detects a broken build at run time; call it at start-up
//    in each translation unit family compiled with distinct flags.
#pragma once

// NVRTC (CUDA kernels paste this file through their metadata's "includes") has no
// standard headers and compiles device code only: it gets the types and algorithms,
// not the host-only parts (__CUDACC_RTC__ below).
#if !defined(__CUDACC_RTC__)
#include <cfloat>
#include <cmath>
#include <limits>
#endif

#if defined(__CUDACC__)
#define HB_HD __host__ __device__ inline
#else
#define HB_HD inline
#endif

#if defined(__FAST_MATH__) && !defined(HB_DFDD_ALLOW_FAST_MATH)
#error "dfdd.hpp: -ffast-math breaks double-word arithmetic (two_sum error terms fold to 0)"
#endif
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ != 0 && __FLT_EVAL_METHOD__ != -1
#error "dfdd.hpp: excess precision (FLT_EVAL_METHOD != 0, e.g. x87) breaks two_sum"
#endif

namespace hetbench {

#if !defined(__CUDACC_RTC__)
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<float>::digits == 24);
static_assert(std::numeric_limits<double>::is_iec559 && std::numeric_limits<double>::digits == 53);
#endif

// Unevaluated sum hi + lo with hi = RN(hi + lo), hence |lo| <= ulp(hi)/2.
template <class T>
struct dw {
  T hi, lo;
};
using df = dw<float>;
using dd = dw<double>;

// accurate: JMP 2017 Alg. 6 add, Alg. 12 mul.  sloppy: seed 001 DFadd/DFmul
// (QD's sloppy add); no bound for opposite-sign operands.
enum class dw_variant { accurate, sloppy };

// Each elementary op rounded once, never fused with a neighbour (see top).
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

// ---- error-free transformations -------------------------------------------

// Knuth's TwoSum: s + e == a + b exactly, s = RN(a + b). 6 ops, no branch.
template <class T>
HB_HD dw<T> two_sum(T a, T b) {
  T s = rn::add(a, b);
  T bb = rn::sub(s, a);
  T e = rn::add(rn::sub(a, rn::sub(s, bb)), rn::sub(b, bb));
  return {s, e};
}

// Dekker's Fast2Sum: exact when exponent(a) >= exponent(b) (e.g. |a| >= |b|). 3 ops.
template <class T>
HB_HD dw<T> fast_two_sum(T a, T b) {
  T s = rn::add(a, b);
  T e = rn::sub(b, rn::sub(s, a));
  return {s, e};
}

// p + e == a * b exactly (no underflow). 1 mul + 1 fma.
template <class T>
HB_HD dw<T> two_prod(T a, T b) {
  T p = rn::mul(a, b);
  T e = rn::fma(a, b, -p);
  return {p, e};
}

// ---- addition ---------------------------------------------------------------

// JMP 2017 Alg. 6 (AccurateDWPlusDW): rel. error <= 3u^2/(1-4u) < 3u^2 + 13u^3.
template <class T>
HB_HD dw<T> add_accurate(dw<T> x, dw<T> y) {
  dw<T> s = two_sum(x.hi, y.hi);
  dw<T> t = two_sum(x.lo, y.lo);
  T c = rn::add(s.lo, t.hi);
  dw<T> v = fast_two_sum(s.hi, c);
  T w = rn::add(t.lo, v.lo);
  return fast_two_sum(v.hi, w);
}

// Seed 001 DFadd = JMP Alg. 5 (SloppyDWPlusDW): the two lo parts are added in
// one rounding, so cancellation of the hi parts exposes an O(u) error.
template <class T>
HB_HD dw<T> add_sloppy(dw<T> x, dw<T> y) {
  dw<T> s = two_sum(x.hi, y.hi);
  T v = rn::add(s.lo, rn::add(x.lo, y.lo));
  return fast_two_sum(s.hi, v);
}

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

// ---- multiplication ---------------------------------------------------------

// JMP 2017 Alg. 12 (DWTimesDW3, with FMA): rel. error <= 5u^2 as published;
// Muller & Rideau (TOMS 2022) later proved 4u^2. Validation uses 5u^2.
template <class T>
HB_HD dw<T> mul_accurate(dw<T> x, dw<T> y) {
  dw<T> c = two_prod(x.hi, y.hi);
  T tl0 = rn::mul(x.lo, y.lo);
  T tl1 = rn::fma(x.hi, y.lo, tl0);
  T cl2 = rn::fma(x.lo, y.hi, tl1);
  T cl3 = rn::add(c.lo, cl2);
  return fast_two_sum(c.hi, cl3);
}

// Seed 001 DFmul: hi is one fma over the cross terms, lo drops x.lo*y.lo.
// No published bound; its measured error is in docs/precision.md.
template <class T>
HB_HD dw<T> mul_sloppy(dw<T> x, dw<T> y) {
  T v = rn::mul(x.hi, y.lo);
  T t = rn::fma(x.lo, y.hi, v);
  T hi = rn::fma(x.hi, y.hi, t);
  T e = rn::fma(x.hi, y.hi, -hi);
  return {hi, rn::add(e, t)};
}

template <dw_variant V = dw_variant::accurate, class T>
HB_HD dw<T> mul(dw<T> x, dw<T> y) {
  if constexpr (V == dw_variant::accurate) {
    return mul_accurate(x, y);
  } else {
    return mul_sloppy(x, y);
  }
}

// JMP 2017 Alg. 9 (DWTimesFP3, with FMA): DW times one word, rel. error <= 2u^2.
template <class T>
HB_HD dw<T> mul(dw<T> x, T y) {
  dw<T> c = two_prod(x.hi, y);
  T cl3 = rn::fma(x.lo, y, c.lo);
  return fast_two_sum(c.hi, cl3);
}

// a*b + c as mul then add of the same variant. accurate: |err| <= (5u^2 +
// 3u^2(1+5u^2)/(1-4u)) * (|ab| + |c|); relative to |ab+c| only without
// cancellation. sloppy: seed 001's 16-operation DF multiply-add.
template <dw_variant V = dw_variant::accurate, class T>
HB_HD dw<T> mad(dw<T> a, dw<T> b, dw<T> c) {
  return add<V>(mul<V>(a, b), c);
}

// ---- conversions --------------------------------------------------------------

// Dekker's split with 2^29+1 (seed 001 double_to_cudfreal): h = d rounded to
// 24 bits, l = d - h exactly (<= 29 bits). Valid for |d| < 2^994.
HB_HD dd dekker_split(double d) {
  double t = rn::opaque(rn::mul(536870913.0, d));  // 2^29 + 1
  double h = rn::sub(t, rn::sub(t, d));
  return {h, rn::sub(d, h)};
}

// double -> DF: hi exact (24 bits), lo = float(l) loses <= u|l|, so the
// relative error is < u^2 = 2^-48. hi overflows to inf near FLT_MAX and lo
// loses bits once |d| < 2^-102 (subnormal lo).
HB_HD df to_df(double d) {
  dd s = dekker_split(d);
  return {rn::to_float(s.hi), rn::to_float(s.lo)};
}
HB_HD df to_df(float f) { return {f, 0.0f}; }
HB_HD dd to_dd(double d) { return {d, 0.0}; }

// RN(hi + lo): correctly rounded, since a single addition of exact inputs.
HB_HD double to_double(df x) { return rn::add(static_cast<double>(x.hi), static_cast<double>(x.lo)); }
HB_HD double to_double(dd x) { return rn::add(x.hi, x.lo); }

// ---- host only (not under NVRTC): long double, operation counts, self-check ----
#if !defined(__CUDACC_RTC__)
// long double is x87 80-bit on x86-64.
inline long double to_long_double(dd x) { return static_cast<long double>(x.hi) + x.lo; }
inline long double to_long_double(df x) { return static_cast<long double>(x.hi) + x.lo; }
// Exact when long double has <= 106 significant bits (x86: 64): x - hi fits a double.
inline dd to_dd(long double x) {
  double hi = static_cast<double>(x);
  return {hi, static_cast<double>(x - hi)};
}

// ---- operation counts ---------------------------------------------------------

// Word operations per DW operation (binary32 for DF, binary64 for DD); an fma
// counts once here. `flops_fma2` counts it as two flops, as vendors' peaks do.
struct op_count {
  int add, mul, fma;
  constexpr int ops() const { return add + mul + fma; }
  constexpr int flops_fma2() const { return add + mul + 2 * fma; }
};
namespace op_counts {
inline constexpr op_count two_sum{6, 0, 0};
inline constexpr op_count fast_two_sum{3, 0, 0};
inline constexpr op_count two_prod{0, 1, 1};
inline constexpr op_count add_accurate{20, 0, 0};
inline constexpr op_count add_sloppy{11, 0, 0};
inline constexpr op_count mul_accurate{4, 2, 3};
inline constexpr op_count mul_sloppy{1, 1, 3};
inline constexpr op_count mul_word{3, 1, 2};
inline constexpr op_count mad_accurate{24, 2, 3};  // 29 ops
inline constexpr op_count mad_sloppy{12, 1, 3};    // 16 ops, seed 001's figure
inline constexpr op_count dekker_split{3, 1, 0};
static_assert(mad_accurate.ops() == 29 && mad_sloppy.ops() == 16);
}  // namespace op_counts

template <dw_variant V>
constexpr op_count mad_op_count() {
  return V == dw_variant::accurate ? op_counts::mad_accurate : op_counts::mad_sloppy;
}

// ---- run-time self-check ------------------------------------------------------

// False when this build folds error terms away (fast-math, reassociation,
// contraction of the split, excess precision). Inputs pass through volatile
// so the checks are not constant-folded away from how real data is treated.
inline bool dfdd_selfcheck() {
  volatile double one = 1.0, tiny = 0x1p-60, sq = 1.0 + 0x1p-30;
  volatile float onef = 1.0f, tinyf = 0x1p-30f, sqf = 1.0f + 0x1p-13f;
  bool ok = true;
  dd s = two_sum<double>(one, tiny);
  ok = ok && s.hi == 1.0 && s.lo == 0x1p-60;
  df sf = two_sum<float>(onef, tinyf);
  ok = ok && sf.hi == 1.0f && sf.lo == 0x1p-30f;
  dd p = two_prod<double>(sq, sq);
  ok = ok && p.hi == 1.0 + 0x1p-29 && p.lo == 0x1p-60;
  df pf = two_prod<float>(sqf, sqf);
  ok = ok && pf.hi == 1.0f + 0x1p-12f && pf.lo == 0x1p-26f;
  // (1 + 2^-40) + (-1 + 2^-30): a float sum of the hi parts alone gives 0.
  df a = add_accurate(df{onef, tinyf * 0x1p-10f}, df{-onef, tinyf});
  ok = ok && a.hi == 0x1p-30f + 0x1p-40f && a.lo == 0.0f;
  // Contraction turns both uses of t = c*d into fmas and returns h = d, l = 0.
  volatile double dsplit = 0x1.123456789abcdp+0;
  dd h = dekker_split(dsplit);
  ok = ok && h.hi == 0x1.123456p+0 && h.lo == 0x1.e26af34p-26;
  return ok;
}
#endif

}  // namespace hetbench
