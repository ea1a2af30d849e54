// Accuracy of the double-word arithmetic (include/hetbench/dfdd.hpp) against MPFR, in
// units of u^2. Lines starting "[dfdd-err]" feed the table in docs/precision.md.
#include <gtest/gtest.h>

#include "test_dfdd_util.hpp"
#ifdef HETBENCH_HAVE_MPFR
#include "mpfr_util.hpp"
#endif

// ---- MPFR accuracy ------------------------------------------------------------------

#ifdef HETBENCH_HAVE_MPFR
namespace {
using hetbench::test::mp;
using hetbench::test::set_mpfr;

struct scratch {
  mp a, b, c, x, r, t, d;
};

struct outcome {
  double rel_u2;  // |r - x| / den in units of u^2
  double mixed;   // |r - x| / (bound u^2 den + k eta): <= 1 near underflow
};

// den = |x|, except |ab| + |c| for mad (mad is not relatively accurate under cancellation).
template <class T>
outcome eval(op o, const in3<T>& in, scratch& m, double bound, double k_eta) {
  constexpr int p = traits<T>::p;
  dw<T> r = apply(o, in);
  set_mpfr(m.a, in.a);
  set_mpfr(m.b, o == op::mul_word ? dw<T>{in.b.hi, T(0)} : in.b);
  if (is_add(o)) {
    mpfr_add(m.x, m.a, m.b, MPFR_RNDN);
    mpfr_abs(m.d, m.x, MPFR_RNDN);
  } else if (is_mad(o)) {
    set_mpfr(m.c, in.c);
    mpfr_mul(m.t, m.a, m.b, MPFR_RNDN);
    mpfr_add(m.x, m.t, m.c, MPFR_RNDN);
    mpfr_abs(m.t, m.t, MPFR_RNDN);
    mpfr_abs(m.d, m.c, MPFR_RNDN);
    mpfr_add(m.d, m.d, m.t, MPFR_RNDN);
  } else {
    mpfr_mul(m.x, m.a, m.b, MPFR_RNDN);
    mpfr_abs(m.d, m.x, MPFR_RNDN);
  }
  if (!std::isfinite(r.hi) || !std::isfinite(r.lo)) return {INFINITY, INFINITY};
  set_mpfr(m.r, r);
  mpfr_sub(m.t, m.r, m.x, MPFR_RNDN);
  mpfr_abs(m.t, m.t, MPFR_RNDN);
  outcome out{};
  if (mpfr_zero_p(m.d)) {
    out.rel_u2 = mpfr_zero_p(m.t) ? 0.0 : INFINITY;
  } else {
    mpfr_div(m.r, m.t, m.d, MPFR_RNDN);
    mpfr_mul_2si(m.r, m.r, 2 * p, MPFR_RNDN);
    out.rel_u2 = mpfr_get_d(m.r, MPFR_RNDU);
  }
  mpfr_mul_d(m.d, m.d, bound, MPFR_RNDN);
  mpfr_mul_2si(m.d, m.d, -2 * p, MPFR_RNDN);
  mpfr_add_d(m.d, m.d, k_eta * eta_of<T>(), MPFR_RNDN);
  mpfr_div(m.r, m.t, m.d, MPFR_RNDN);
  out.mixed = mpfr_zero_p(m.t) ? 0.0 : mpfr_get_d(m.r, MPFR_RNDU);
  return out;
}

struct stats {
  double max_rel = 0, max_mixed = 0;
  std::string worst;
};

template <class T>
stats measure(op o, set s, size_t n, double bound, double k_eta) {
  const unsigned nt = n_threads();
  std::vector<stats> part(nt);
  std::vector<std::thread> pool;
  const uint64_t seed = run_seed() ^ (uint64_t(o) << 40) ^ (uint64_t(s) << 48) ^ traits<T>::p;
  for (unsigned t = 0; t < nt; ++t) {
    pool.emplace_back([&, t] {
      rng_t g(seed + 0x9e3779b97f4a7c15ull * (t + 1));
      scratch m;
      stats& st = part[t];
      for (size_t i = t; i < n; i += nt) {
        in3<T> in = draw<T>(g, o, s);
        outcome e = eval(o, in, m, bound > 0 ? bound : 1.0, k_eta);
        if (std::isnan(e.rel_u2)) e.rel_u2 = INFINITY;
        if (std::isnan(e.mixed)) e.mixed = INFINITY;
        if (e.rel_u2 > st.max_rel || (st.worst.empty() && e.rel_u2 > 0)) {
          st.max_rel = std::max(st.max_rel, e.rel_u2);
          st.worst = describe_inputs(in);
        }
        st.max_mixed = std::max(st.max_mixed, e.mixed);
      }
    });
  }
  for (auto& th : pool) th.join();
  stats all;
  for (auto& st : part) {
    if (st.max_rel >= all.max_rel) {
      all.max_rel = st.max_rel;
      all.worst = st.worst;
    }
    all.max_mixed = std::max(all.max_mixed, st.max_mixed);
  }
  return all;
}

template <class T>
stats run_set(op o, set s, size_t n, double k_eta = 0) {
  const double b = bound_u2<T>(o);
  stats st = measure<T>(o, s, n, b, k_eta);
  char text[256];
  std::snprintf(text, sizeof text, "%s %-13s %-13s n=%-8zu max=%.4g u^2  bound=%s  (underflow metric %.3g)",
                traits<T>::name, op_name(o), set_name(s), n, st.max_rel, b > 0 ? std::to_string(b).c_str() : "none",
                st.max_mixed);
  report(std::string(traits<T>::name) + "." + op_name(o) + "." + set_name(s), st.max_rel, text);
  return st;
}

// Bounded ops: every set within the published bound; near underflow within
// bound*u^2*|x| + k*eta (eta = smallest subnormal), since lo loses bits there.
template <class T>
void check_bounded(op o, double k_eta) {
  SCOPED_TRACE(seed_note());
  const double b = bound_u2<T>(o);
  std::vector<set> sets{set::random, set::overflow, set::limit};
  if (is_add(o) || is_mad(o)) sets.push_back(set::cancel);
  for (set s : sets) {
    stats st = run_set<T>(o, s, s == set::random ? n_random : n_adversarial);
    EXPECT_LE(st.max_rel, b) << op_name(o) << " " << set_name(s) << " worst " << st.worst;
  }
  stats st = run_set<T>(o, set::underflow, n_adversarial, k_eta);
  EXPECT_LE(st.max_mixed, 1.0) << op_name(o) << " subnormal lo, worst " << st.worst;
}

template <class T>
void check_sloppy_add() {
  SCOPED_TRACE(seed_note());
  constexpr int p = traits<T>::p;
  run_set<T>(op::add_slp, set::same_sign, n_random);
  run_set<T>(op::add_slp, set::random, n_random);
  run_set<T>(op::add_slp, set::limit, n_adversarial);
  stats c = run_set<T>(op::add_slp, set::cancel, n_adversarial);
  EXPECT_GT(c.max_rel, 3.0) << "the sloppy add should break the 3u^2 bound under cancellation";
  // (1 + 2^-(p+2)) + (-1 - 3*2^-(2p+5)): lo parts summed in one rounding.
  in3<T> in{{T(1), std::ldexp(T(1), -(p + 2))}, {T(-1), -3 * std::ldexp(T(1), -(2 * p + 5))}, {}};
  scratch m;
  outcome slp = eval(op::add_slp, in, m, 3.0, 0), acc = eval(op::add_acc, in, m, 3.0, 0);
  EXPECT_GT(slp.rel_u2, 1e6);
  EXPECT_EQ(acc.rel_u2, 0.0);
  report(std::string(traits<T>::name) + ".add_sloppy.fixed_cancel", slp.rel_u2,
         std::string(traits<T>::name) + " add_sloppy    fixed_cancel  max=" + std::to_string(slp.rel_u2) +
             " u^2 (accurate: " + std::to_string(acc.rel_u2) + ")");
}

// Sloppy mul/mad have no published bound: report, and only demand that they
// stay double-word accurate (a few u^2) where no cancellation is involved.
template <class T>
void check_sloppy_mul() {
  SCOPED_TRACE(seed_note());
  stats m = run_set<T>(op::mul_slp, set::random, n_random);
  EXPECT_LE(m.max_rel, 16.0) << m.worst;
  run_set<T>(op::mul_slp, set::limit, n_adversarial);
  stats d = run_set<T>(op::mad_slp, set::same_sign, n_random);
  EXPECT_LE(d.max_rel, 32.0) << d.worst;
  run_set<T>(op::mad_slp, set::cancel, n_adversarial);
}
}  // namespace

#define HB_MPFR_TEST(suite, name, body) \
  TEST(suite, name) { body; }
#else
#define HB_MPFR_TEST(suite, name, body) \
  TEST(suite, name) { GTEST_SKIP() << "built without MPFR (HETBENCH_HAVE_MPFR undefined)"; }
#endif

HB_MPFR_TEST(DfAccuracy, AddAccurate, check_bounded<float>(op::add_acc, 0))
HB_MPFR_TEST(DdAccuracy, AddAccurate, check_bounded<double>(op::add_acc, 0))
HB_MPFR_TEST(DfAccuracy, AddSloppy, check_sloppy_add<float>())
HB_MPFR_TEST(DdAccuracy, AddSloppy, check_sloppy_add<double>())
HB_MPFR_TEST(DfAccuracy, MulAccurate, check_bounded<float>(op::mul_acc, 4))
HB_MPFR_TEST(DdAccuracy, MulAccurate, check_bounded<double>(op::mul_acc, 4))
HB_MPFR_TEST(DfAccuracy, MulWord, check_bounded<float>(op::mul_word, 3))
HB_MPFR_TEST(DdAccuracy, MulWord, check_bounded<double>(op::mul_word, 3))
HB_MPFR_TEST(DfAccuracy, MadAccurate, check_bounded<float>(op::mad_acc, 6))
HB_MPFR_TEST(DdAccuracy, MadAccurate, check_bounded<double>(op::mad_acc, 6))
HB_MPFR_TEST(DfAccuracy, Sloppy, check_sloppy_mul<float>())
HB_MPFR_TEST(DdAccuracy, Sloppy, check_sloppy_mul<double>())

#ifdef HETBENCH_HAVE_MPFR
namespace {
// double -> DF relative error (u = 2^-24), in units of u^2, for d near 2^[elo, ehi].
double to_df_max_err(int elo, int ehi, size_t n, double& mixed) {
  rng_t g(run_seed() + 7 + elo);
  mp x, r, t;
  double worst = 0;
  mixed = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = rand_word<double>(g, uni(g, elo, ehi));
    mpfr_set_d(x, d, MPFR_RNDN);
    set_mpfr(r, to_df(d));
    worst = std::max(worst, std::ldexp(hetbench::test::rel_err(r, x, t), 48));
    mpfr_sub(t, r, x, MPFR_RNDN);
    mixed = std::max(mixed, std::fabs(mpfr_get_d(t, MPFR_RNDN)) / (0x1p-48 * std::fabs(d) + 0x1p-150));
  }
  return worst;
}
}  // namespace

TEST(DfddConvert, DoubleToDfWithinUSquared) {
  SCOPED_TRACE(seed_note());
  double mixed = 0;
  double e = to_df_max_err(-100, 100, n_random, mixed);
  report("DF.to_df.random", e, "DF to_df(double) random        n=1000000 max=" + std::to_string(e) + " u^2  bound=1");
  EXPECT_LE(e, 1.0);
  e = to_df_max_err(100, 126, n_adversarial, mixed);
  report("DF.to_df.near_overflow", e, "DF to_df(double) near_overflow n=100000 max=" + std::to_string(e) + " u^2");
  EXPECT_LE(e, 1.0);
  e = to_df_max_err(-126, -100, n_adversarial, mixed);
  report("DF.to_df.subnormal_lo", e,
         "DF to_df(double) subnormal_lo  n=100000 max=" + std::to_string(e) + " u^2  (underflow metric " +
             std::to_string(mixed) + ")");
  EXPECT_LE(mixed, 1.0) << "error must stay within u^2|d| + eta/2";
}

// to_double, long double helpers: exact or correctly rounded, checked against MPFR.
TEST(DfddConvert, RoundTripsCorrectlyRounded) {
  SCOPED_TRACE(seed_note());
  rng_t g(run_seed() + 3);
  mp x, t;
  size_t bad_df = 0, bad_dd = 0, bad_ld = 0, bad_exact = 0;
  for (size_t i = 0; i < n_random; ++i) {
    df f = rand_dw<float>(g, uni(g, -100, 100));
    dd d = rand_dw<double>(g, uni(g, -900, 900));
    set_mpfr(x, f);
    bad_df += to_double(f) != mpfr_get_d(x, MPFR_RNDN);
    bad_ld += to_long_double(f) != mpfr_get_ld(x, MPFR_RNDN);
    set_mpfr(x, d);
    bad_dd += to_double(d) != mpfr_get_d(x, MPFR_RNDN);
    bad_ld += to_long_double(d) != mpfr_get_ld(x, MPFR_RNDN);
    if (i % 8 == 0) {
      long double ld = std::ldexp(static_cast<long double>(g() | (uint64_t{1} << 63)), uni(g, -1000, 900));
      dd c = to_dd(ld);
      set_mpfr(x, c);
      mpfr_set_ld(t, ld, MPFR_RNDN);
      bad_exact += mpfr_cmp(x, t) != 0 || c.hi + c.lo != c.hi;
      float w = rand_word<float>(g, uni(g, -100, 100));
      bad_exact += !same_bits(to_df(w), df{w, 0.0f}) || !same_bits(to_dd(double(w)), dd{double(w), 0.0});
    }
  }
  EXPECT_EQ(bad_df, 0u) << "to_double(df) not correctly rounded";
  EXPECT_EQ(bad_dd, 0u) << "to_double(dd) not correctly rounded";
  EXPECT_EQ(bad_ld, 0u) << "to_long_double not correctly rounded";
  EXPECT_EQ(bad_exact, 0u) << "to_dd(long double) / to_df(float) / to_dd(double) not exact";
  report("convert.roundtrip_mismatches", double(bad_df + bad_dd + bad_ld + bad_exact),
         "to_double(DF|DD), to_long_double(DF|DD) correctly rounded; to_dd(long double) exact: mismatches=" +
             std::to_string(bad_df + bad_dd + bad_ld + bad_exact) + " over 1000000");
}
#else
TEST(DfddConvert, DoubleToDfWithinUSquared) { GTEST_SKIP() << "built without MPFR (HETBENCH_HAVE_MPFR undefined)"; }
TEST(DfddConvert, RoundTripsCorrectlyRounded) { GTEST_SKIP() << "built without MPFR (HETBENCH_HAVE_MPFR undefined)"; }
#endif
