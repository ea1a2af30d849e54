// Build sanity of the double-word arithmetic (include/hetbench/dfdd.hpp over
// kernels/common/dfdd.h): the compiler flags this test is built with must leave the
// error terms intact, and the Dekker split must be exact.
#include <gtest/gtest.h>

#include "test_dfdd_util.hpp"

namespace {
// False when this build folds error terms away (fast-math, reassociation, contraction
// of the split, excess precision): flags that define no macro for dfdd.hpp's #errors.
// Inputs pass through volatile so the checks are not constant-folded away from how real
// data is treated.
bool dfdd_selfcheck() {
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
}  // namespace

TEST(DfddBuild, SelfCheckPasses) { EXPECT_TRUE(dfdd_selfcheck()) << "this build folds error terms away"; }

TEST(DfddBuild, OpCounts) {
  EXPECT_EQ(op_counts::add_accurate.ops(), 20);
  EXPECT_EQ(op_counts::add_sloppy.ops(), 11);
  EXPECT_EQ(op_counts::mul_accurate.ops(), 9);
  EXPECT_EQ(op_counts::mad_sloppy.ops(), 16);  // Mukunoki & Imamura: "about 16"
  EXPECT_EQ(mad_op_count<dw_variant::accurate>().flops_fma2(), 32);
}

// Contraction guard: the header, inlined into this TU with whatever flags it
// was given, must match references whose every step is forced through a
// volatile (so it is rounded on its own), bit for bit. The references are
// noinline so that their products are not shared with (and do not hide a
// contraction of) the inlined header code.
namespace {
[[gnu::noinline]] dd split_ref(double d) {
  volatile double t = 536870913.0 * d;
  volatile double tmd = t - d;
  volatile double h = t - tmd;
  volatile double l = d - h;
  return {h, l};
}
template <class T>
dw<T> fts_ref(T a, T b) {
  volatile T s = a + b;
  volatile T z = s - a;
  volatile T e = b - z;
  return {s, e};
}
template <class T>
[[gnu::noinline]] dw<T> mul_ref(dw<T> x, dw<T> y) {
  volatile T p = x.hi * y.hi;
  volatile T e = std::fma(x.hi, y.hi, -p);
  volatile T tl0 = x.lo * y.lo;
  volatile T tl1 = std::fma(x.hi, y.lo, tl0);
  volatile T cl2 = std::fma(x.lo, y.hi, tl1);
  volatile T cl3 = e + cl2;
  return fts_ref<T>(p, cl3);
}
// Header code in a standalone function of this TU: where contraction bites
// (inlined into a vectorised loop, GCC may pack the subtractions instead).
[[gnu::noinline]] dd header_split(double d) { return dekker_split(d); }
[[gnu::noinline]] df header_to_df(double d) { return to_df(d); }
template <class T>
[[gnu::noinline]] dw<T> header_mul(dw<T> x, dw<T> y) { return mul_accurate(x, y); }
// Scalar use of the split (not packed into vectors): hi must have 24 bits.
[[gnu::noinline]] bool header_split_ok(double d) {
  dd s = dekker_split(d);
  return static_cast<double>(static_cast<float>(s.hi)) == s.hi && s.hi + s.lo == d;
}

template <class T>
void contraction_guard() {
  rng_t g(run_seed());
  size_t bad_split = 0, bad_mul = 0;
  for (int i = 0; i < 100000; ++i) {
    double d = rand_word<double>(g, uni(g, -60, 60));
    dd ref = split_ref(d);
    if (!same_bits(dekker_split(d), ref) || !same_bits(header_split(d), ref)) ++bad_split;
    if (!same_bits(header_to_df(d), df{float(ref.hi), float(ref.lo)}) || !header_split_ok(d)) ++bad_split;
    dw<T> a = rand_dw<T>(g, uni(g, -10, 10)), b = rand_dw<T>(g, uni(g, -10, 10));
    dw<T> ref_mul = mul_ref(a, b);
    if (!same_bits(mul_accurate(a, b), ref_mul) || !same_bits(header_mul(a, b), ref_mul)) ++bad_mul;
  }
  EXPECT_EQ(bad_split, 0u) << "Dekker split contracted in this TU";
  EXPECT_EQ(bad_mul, 0u) << "mul_accurate differs from the op-by-op reference";
}
}  // namespace

TEST(DfddBuild, ContractionGuard) {
  SCOPED_TRACE(seed_note());
  contraction_guard<float>();
  contraction_guard<double>();
}

// ---- Dekker split ---------------------------------------------------------------

TEST(DfddConvert, DekkerSplitExact) {
  SCOPED_TRACE(seed_note());
  rng_t g(run_seed() + 1);
  size_t bad = 0;
  std::string first;
  for (size_t i = 0; i < n_random; ++i) {
    double d = rand_word<double>(g, uni(g, -100, 100));
    dd s = dekker_split(d);
    int ex = 0;
    double m = std::ldexp(std::frexp(s.hi, &ex), 24);  // integer iff <= 24 significant bits
    df f = to_df(d);
    bool ok = m == std::trunc(m) && static_cast<double>(f.hi) == s.hi && s.hi + s.lo == d &&
              std::fabs(s.lo) <= std::ldexp(1.0, std::ilogb(s.hi) - 24) &&
              std::fabs(s.lo - static_cast<double>(f.lo)) <= 0x1p-48 * std::fabs(d);  // all exact in double
    if (!ok && bad++ == 0) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "d=%a hi=%a lo=%a", d, s.hi, s.lo);
      first = buf;
    }
  }
  EXPECT_EQ(bad, 0u) << first;
}
