// Double-word arithmetic: DF (pair of binary32) and DD (pair of binary64) for host
// C++20 and CUDA device code. The algorithms are kernels/common/dfdd.h, the one source
// that the CUDA and OpenCL kernels paste too; this header adds the build guards and the
// host-only parts. Algorithms, bounds and sources are in docs/precision.md.
//
// Build requirements (the algorithms rely on every operation being rounded
// exactly once, in the order written):
//  * Host: compile with -ffp-contract=off. GCC's ISO modes (-std=c++20, which
//    CMake uses) already default to off; -std=gnu++20 defaults to "fast".
//    Contraction would fuse the product and subtraction of Dekker's split, so
//    that split is also fenced with an optimisation barrier (rn::opaque), and
//    every other product already goes through an explicit fma. The
//    fallback is still the flag, not the fence.
//  * Never -ffast-math (or -fassociative-math / -funsafe-math-optimizations):
//    reassociation lets the compiler prove the error term of two_sum,
//    (a - (s - bb)) + (b - bb), equal to zero, so every lo becomes 0 and DF/DD
//    silently degrade to plain float/double; -ffinite-math-only and
//    -fno-signed-zeros are harmless to the algebra but -freciprocal-math and
//    flush-to-zero (-ffast-math links crtfastmath.o, which sets FTZ/DAZ) lose
//    the subnormal lo parts near underflow. __FAST_MATH__ is an #error below;
//    the flags that define no macro are caught by the DfddBuild tests
//    (tests/ops/test_dfdd_build.cpp), which run the algorithms on opaque inputs.
//  * x87 excess precision (FLT_EVAL_METHOD != 0) breaks two_sum: #error below.
//  * CUDA device code uses __fadd_rn/__fmul_rn/__fmaf_rn (and the double ones),
//    which nvcc never contracts, so --fmad=true (the default) is safe.
//    --use_fast_math implies -ftz=true: binary32 subnormals are flushed, so DF
//    lo parts are lost below about 2^-102 (DD is unaffected). nvcc defines no
//    macro for it, so this cannot be an #error: do not use it for DF kernels.
#pragma once

#include <cfloat>
#include <cmath>
#include <limits>

#if defined(__FAST_MATH__) && !defined(HB_DFDD_ALLOW_FAST_MATH)
#error "dfdd.hpp: -ffast-math breaks double-word arithmetic (two_sum error terms fold to 0)"
#endif
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ != 0 && __FLT_EVAL_METHOD__ != -1
#error "dfdd.hpp: excess precision (FLT_EVAL_METHOD != 0, e.g. x87) breaks two_sum"
#endif

// Relative to this header, so that the host build needs no extra include path.
#include "kernels/common/dfdd.h"

namespace hetbench {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<float>::digits == 24);
static_assert(std::numeric_limits<double>::is_iec559 && std::numeric_limits<double>::digits == 53);

// ---- host only: long double and operation counts -------------------------------
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
inline constexpr op_count mad_sloppy{12, 1, 3};    // 16 ops, Mukunoki & Imamura's figure
inline constexpr op_count dekker_split{3, 1, 0};
static_assert(mad_accurate.ops() == 29 && mad_sloppy.ops() == 16);
}  // namespace op_counts

template <dw_variant V>
constexpr op_count mad_op_count() {
  return V == dw_variant::accurate ? op_counts::mad_accurate : op_counts::mad_sloppy;
}

}  // namespace hetbench
