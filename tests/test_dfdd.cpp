// Accuracy suite for include/hetbench/dfdd.hpp (errors against MPFR, in units
// of u^2) and bitwise agreement of kernels/opencl/include/dfdd.cl with it.
// Lines starting "[dfdd-err]" feed the table in docs/precision.md.
#include <gtest/gtest.h>

#include <CL/cl.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hetbench/dfdd.hpp"
#ifdef HETBENCH_HAVE_MPFR
#include "mpfr_util.hpp"
#endif

using namespace hetbench;

namespace {

using rng_t = std::mt19937_64;

template <class T>
struct traits;
template <>
struct traits<float> {
  static constexpr int p = 24, emin = -126, emax = 127;
  static constexpr const char* name = "DF";
};
template <>
struct traits<double> {
  static constexpr int p = 53, emin = -1022, emax = 1023;
  static constexpr const char* name = "DD";
};
template <class T>
constexpr double u_of() { return std::ldexp(1.0, -traits<T>::p); }
template <class T>
double eta_of() { return std::ldexp(1.0, traits<T>::emin - traits<T>::p + 1); }

// Fresh per run; HETBENCH_DFDD_SEED=<n> replays a failure.
uint64_t run_seed() {
  static const uint64_t seed = []() -> uint64_t {
    if (const char* s = std::getenv("HETBENCH_DFDD_SEED")) return std::strtoull(s, nullptr, 0);
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd();
  }();
  return seed;
}
std::string seed_note() { return "seed=" + std::to_string(run_seed()) + " (replay: HETBENCH_DFDD_SEED)"; }

int uni(rng_t& g, int lo, int hi) { return lo + static_cast<int>(g() % static_cast<uint64_t>(hi - lo + 1)); }

// Random word in [2^e, 2^(e+1)) with random sign; `even` clears the last bit.
template <class T>
T rand_word(rng_t& g, int e, bool even = false) {
  constexpr int p = traits<T>::p;
  uint64_t m = (g() >> (64 - p)) | (uint64_t{1} << (p - 1));
  if (even) m &= ~uint64_t{1};
  T v = std::ldexp(static_cast<T>(m), e - (p - 1));
  return (g() & 1) ? -v : v;
}

// A double-word near 2^e: lo mostly just below ulp(hi), sometimes far below or 0.
template <class T>
dw<T> rand_dw(rng_t& g, int e) {
  int j = uni(g, 0, 7);
  if (j == 7) return {rand_word<T>(g, e), T(0)};
  T hi = rand_word<T>(g, e);
  T lo = rand_word<T>(g, e - traits<T>::p - (j > 3 ? 4 * j : 0));
  return fast_two_sum(hi, lo);
}

// |lo| = ulp(hi)/2 exactly, hi even so that hi = RN(hi + lo) still holds.
template <class T>
dw<T> limit_dw(rng_t& g, int e) {
  for (;;) {
    T hi = rand_word<T>(g, e, true);
    T half = std::ldexp(T(1), std::ilogb(hi) - traits<T>::p);
    T lo = (g() & 1) ? half : -half;
    if (hi + lo == hi) return {hi, lo};
  }
}

// -x moved by a few ulps with an unrelated lo: x + result cancels heavily.
template <class T>
dw<T> near_neg(rng_t& g, dw<T> x) {
  constexpr int p = traits<T>::p;
  int e = std::ilogb(x.hi);
  T hi = -(x.hi + static_cast<T>(uni(g, -2, 2)) * std::ldexp(T(1), e - p + 1));
  T lo = (g() & 1) ? -x.lo + rand_word<T>(g, e - 2 * p - uni(g, 0, p)) : rand_word<T>(g, e - p - uni(g, 0, p));
  return fast_two_sum(hi, lo);
}

template <class T>
struct in3 {
  dw<T> a, b, c;
};

enum class op { add_acc, add_slp, mul_acc, mul_slp, mul_word, mad_acc, mad_slp };
const char* op_name(op o) {
  switch (o) {
    case op::add_acc: return "add_accurate";
    case op::add_slp: return "add_sloppy";
    case op::mul_acc: return "mul_accurate";
    case op::mul_slp: return "mul_sloppy";
    case op::mul_word: return "mul_word";
    case op::mad_acc: return "mad_accurate";
    case op::mad_slp: return "mad_sloppy";
  }
  return "?";
}
bool is_add(op o) { return o == op::add_acc || o == op::add_slp; }
bool is_mad(op o) { return o == op::mad_acc || o == op::mad_slp; }

template <class T>
dw<T> apply(op o, const in3<T>& in) {
  switch (o) {
    case op::add_acc: return add<dw_variant::accurate>(in.a, in.b);
    case op::add_slp: return add<dw_variant::sloppy>(in.a, in.b);
    case op::mul_acc: return mul<dw_variant::accurate>(in.a, in.b);
    case op::mul_slp: return mul<dw_variant::sloppy>(in.a, in.b);
    case op::mul_word: return mul(in.a, in.b.hi);
    case op::mad_acc: return mad<dw_variant::accurate>(in.a, in.b, in.c);
    case op::mad_slp: return mad<dw_variant::sloppy>(in.a, in.b, in.c);
  }
  return {};
}

// Published bounds in units of u^2 (JMP 2017); mad composes mul and add.
template <class T>
double bound_u2(op o) {
  const double u = u_of<T>();
  switch (o) {
    case op::add_acc: return 3.0 / (1.0 - 4.0 * u);
    case op::mul_acc: return 5.0;
    case op::mul_word: return 2.0;
    case op::mad_acc: return 5.0 + 3.0 * (1.0 + 5.0 * u * u) / (1.0 - 4.0 * u);
    default: return 0.0;  // sloppy: no published bound
  }
}

// Input sets. Random exponents stay far from both ends of the range.
enum class set { random, same_sign, cancel, overflow, underflow, limit };
const char* set_name(set s) {
  switch (s) {
    case set::random: return "random";
    case set::same_sign: return "same_sign";
    case set::cancel: return "cancel";
    case set::overflow: return "near_overflow";
    case set::underflow: return "subnormal_lo";
    case set::limit: return "lo=ulp/2";
  }
  return "?";
}

template <class T>
in3<T> draw(rng_t& g, op o, set s) {
  constexpr int p = traits<T>::p, emin = traits<T>::emin, emax = traits<T>::emax;
  in3<T> in{};
  int ea = uni(g, -20, 20), eb = uni(g, -20, 20);
  switch (s) {
    case set::random:
    case set::same_sign:
    case set::cancel:
      break;
    case set::overflow:
      ea = is_add(o) ? emax - 2 : emax / 2;
      eb = is_add(o) ? ea - uni(g, 0, 2 * p) : emax / 2 - 1;
      break;
    case set::underflow:
      ea = is_add(o) ? emin + uni(g, 0, p) : (emin + p) / 2 + uni(g, -p / 2, p / 2);
      eb = is_add(o) ? std::max(emin, ea + uni(g, -p, p)) : (emin + p) / 2 + uni(g, -p / 2, p / 2);
      break;
    case set::limit:
      eb = is_add(o) ? ea + uni(g, -3, 3) : eb;
      in.a = limit_dw<T>(g, ea);
      in.b = limit_dw<T>(g, eb);
      if (is_mad(o)) in.c = limit_dw<T>(g, ea + eb + uni(g, -3, 3));
      return in;
  }
  if (s == set::random && is_add(o)) eb = ea + uni(g, -2 * p - 4, 2 * p + 4);
  if (s == set::same_sign) eb = is_add(o) ? ea + uni(g, -2 * p - 4, 2 * p + 4) : eb;
  in.a = rand_dw<T>(g, ea);
  in.b = rand_dw<T>(g, eb);
  if (o == op::mul_word) in.b.lo = T(0);
  int ec = ea + eb + (s == set::overflow ? uni(g, -2 * p, 0) : uni(g, -2 * p - 4, 2 * p + 4));
  if (s == set::underflow) ec = std::max(emin, ec);
  if (is_mad(o)) in.c = rand_dw<T>(g, ec);
  if (s == set::same_sign) {
    if ((in.a.hi < 0) != (in.b.hi < 0)) in.b = neg(in.b);
    if (is_mad(o) && ((in.a.hi < 0) != (in.b.hi < 0)) == (in.c.hi < 0) ) in.c = neg(in.c);
  }
  if (s == set::cancel) {
    if (is_add(o)) in.b = near_neg(g, in.a);
    if (is_mad(o)) in.c = near_neg(g, mul(in.a, in.b));
  }
  return in;
}

template <class T>
std::string describe(const in3<T>& in) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "a=(%a,%a) b=(%a,%a) c=(%a,%a)", double(in.a.hi), double(in.a.lo), double(in.b.hi),
                double(in.b.lo), double(in.c.hi), double(in.c.lo));
  return buf;
}

template <class T>
bool same_bits(dw<T> x, dw<T> y) {
  return std::memcmp(&x.hi, &y.hi, sizeof(T)) == 0 && std::memcmp(&x.lo, &y.lo, sizeof(T)) == 0;
}

void report(const std::string& key, double value, const std::string& text) {
  std::cout << "[dfdd-err] " << text << std::endl;
  ::testing::Test::RecordProperty(key, std::to_string(value));
}

constexpr size_t n_random = 1000000;
constexpr size_t n_adversarial = 100000;
unsigned n_threads() { return std::clamp(std::thread::hardware_concurrency(), 1u, 4u); }

}  // namespace

// ---- build sanity -------------------------------------------------------------

TEST(DfddBuild, SelfCheckPasses) { EXPECT_TRUE(dfdd_selfcheck()) << "this build folds error terms away"; }

TEST(DfddBuild, OpCounts) {
  EXPECT_EQ(op_counts::add_accurate.ops(), 20);
  EXPECT_EQ(op_counts::add_sloppy.ops(), 11);
  EXPECT_EQ(op_counts::mul_accurate.ops(), 9);
  EXPECT_EQ(op_counts::mad_sloppy.ops(), 16);  // seed 001: "about 16"
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
          st.worst = describe(in);
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

// ---- OpenCL agreement -------------------------------------------------------------------

namespace {
std::string read_cl_header() {
  std::vector<std::string> paths;
#ifdef HETBENCH_SOURCE_DIR
  paths.push_back(std::string(HETBENCH_SOURCE_DIR) + "/kernels/opencl/include/dfdd.cl");
#endif
  for (const char* rel : {"kernels/opencl/include/dfdd.cl", "../kernels/opencl/include/dfdd.cl",
                          "../../kernels/opencl/include/dfdd.cl"})
    paths.emplace_back(rel);
  for (const auto& path : paths) {
    std::ifstream f(path);
    if (f) return std::string(std::istreambuf_iterator<char>(f), {});
  }
  return {};
}

constexpr int n_out = 8;  // results per element, in kernel order
const char* const kernel_src = R"CL(
#define DW_OPS(P, T2, S)                                                        \
  __kernel void P##_ops(__global const T2* a, __global const T2* b,           \
                        __global const T2* c, __global T2* o, const int n) { \
    int i = get_global_id(0);                                                 \
    if (i >= n) return;                                                       \
    T2 x = a[i], y = b[i], z = c[i];                                          \
    o += 8 * i;                                                               \
    o[0] = P##_add_accurate(x, y);                                            \
    o[1] = P##_add_sloppy(x, y);                                              \
    o[2] = P##_mul(x, y);                                                     \
    o[3] = P##_mul_sloppy(x, y);                                              \
    o[4] = P##_mul_##S(x, y.x);                                               \
    o[5] = P##_mad_accurate(x, y, z);                                         \
    o[6] = P##_mad_sloppy(x, y, z);                                           \
    o[7] = P##_add(x, y);                                                     \
  }
DW_OPS(df, float2, f)
#ifdef cl_khr_fp64
DW_OPS(dd, double2, d)
__kernel void split(__global const double* d, __global float2* o, const int n) {
  int i = get_global_id(0);
  if (i < n) o[i] = df_from_double(d[i]);
}
#endif
)CL";

template <class T>
void host_ops(const in3<T>& in, dw<T>* o) {
  o[0] = add_accurate(in.a, in.b);
  o[1] = add_sloppy(in.a, in.b);
  o[2] = mul_accurate(in.a, in.b);
  o[3] = mul_sloppy(in.a, in.b);
  o[4] = mul(in.a, in.b.hi);
  o[5] = mad<dw_variant::accurate>(in.a, in.b, in.c);
  o[6] = mad<dw_variant::sloppy>(in.a, in.b, in.c);
  o[7] = add(in.a, in.b);  // default variant = accurate = df_add without DFDD_SLOPPY_ADD
}

struct cl_session {
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;
  cl_program prog = nullptr;
  cl_device_id dev = nullptr;
  std::string why_not;  // non-empty: skip reason
  std::string extensions;
  ~cl_session() {
    if (prog) clReleaseProgram(prog);
    if (queue) clReleaseCommandQueue(queue);
    if (ctx) clReleaseContext(ctx);
  }
};

void open_cl(cl_session& s) {
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) {
    s.why_not = "no OpenCL platform";
    return;
  }
  std::vector<cl_platform_id> plats(np);
  clGetPlatformIDs(np, plats.data(), nullptr);
  for (cl_device_type type : {cl_device_type(CL_DEVICE_TYPE_CPU), cl_device_type(CL_DEVICE_TYPE_ALL)}) {
    for (auto pl : plats)
      if (clGetDeviceIDs(pl, type, 1, &s.dev, nullptr) == CL_SUCCESS) break;
    if (s.dev) break;
  }
  if (!s.dev) {
    s.why_not = "no OpenCL device";
    return;
  }
  size_t len = 0;
  clGetDeviceInfo(s.dev, CL_DEVICE_EXTENSIONS, 0, nullptr, &len);
  s.extensions.resize(len);
  clGetDeviceInfo(s.dev, CL_DEVICE_EXTENSIONS, len, s.extensions.data(), nullptr);
  cl_int err = 0;
  s.ctx = clCreateContext(nullptr, 1, &s.dev, nullptr, nullptr, &err);
  if (err == CL_SUCCESS) s.queue = clCreateCommandQueueWithProperties(s.ctx, s.dev, nullptr, &err);
  if (err != CL_SUCCESS) s.why_not = "OpenCL context/queue creation failed: " + std::to_string(err);
}

template <class V>
cl_mem to_device(cl_session& s, std::vector<V>& v) {
  cl_int err = 0;
  cl_mem m = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(V), v.data(), &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return m;
}

// Runs `name` over (bufs..., n) and reads the last buffer back into out.
template <class V>
void run_kernel(cl_session& s, const char* name, std::vector<cl_mem> bufs, std::vector<V>& out, int n) {
  cl_int err = 0;
  cl_kernel k = clCreateKernel(s.prog, name, &err);
  ASSERT_EQ(err, CL_SUCCESS) << name;
  for (cl_uint i = 0; i < bufs.size(); ++i) clSetKernelArg(k, i, sizeof(cl_mem), &bufs[i]);
  clSetKernelArg(k, cl_uint(bufs.size()), sizeof(int), &n);
  size_t global = (size_t(n) + 63) / 64 * 64;
  EXPECT_EQ(clEnqueueNDRangeKernel(s.queue, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(clEnqueueReadBuffer(s.queue, bufs.back(), CL_TRUE, 0, out.size() * sizeof(V), out.data(), 0, nullptr,
                                nullptr),
            CL_SUCCESS);
  clReleaseKernel(k);
  for (cl_mem m : bufs) clReleaseMemObject(m);
}

template <class T>
void compare_ops(cl_session& s, const char* kernel, int n) {
  static_assert(sizeof(dw<T>) == 2 * sizeof(T));
  rng_t g(run_seed() + traits<T>::p);
  std::vector<dw<T>> a(n), b(n), c(n), dev(size_t(n) * n_out), host(size_t(n) * n_out);
  for (int i = 0; i < n; ++i) {
    in3<T> in = draw<T>(g, op::mad_acc, i % 8 == 0 ? set::cancel : set::random);
    if (i % 8 == 1) in.b = near_neg(g, in.a);
    a[i] = in.a, b[i] = in.b, c[i] = in.c;
    host_ops(in, &host[size_t(i) * n_out]);
  }
  run_kernel(s, kernel, {to_device(s, a), to_device(s, b), to_device(s, c), to_device(s, dev)}, dev, n);
  size_t bad[n_out] = {};
  std::string first;
  for (size_t i = 0; i < host.size(); ++i) {
    if (same_bits(host[i], dev[i])) continue;
    if (bad[i % n_out]++ == 0 && first.empty())
      first = "op " + std::to_string(i % n_out) + " at " + describe(in3<T>{a[i / n_out], b[i / n_out], c[i / n_out]});
  }
  const char* names[n_out] = {"add_accurate", "add_sloppy", "mul",        "mul_sloppy",
                              "mul_word",     "mad_accurate", "mad_sloppy", "add(default)"};
  for (int k = 0; k < n_out; ++k) EXPECT_EQ(bad[k], 0u) << traits<T>::name << " " << names[k] << ": " << first;
}
}  // namespace

TEST(DfddOpenCL, MatchesHostBitwise) {
  SCOPED_TRACE(seed_note());
  const std::string header = read_cl_header();
  ASSERT_FALSE(header.empty()) << "kernels/opencl/include/dfdd.cl not found (HETBENCH_SOURCE_DIR or cwd)";
  cl_session s;
  open_cl(s);
  if (!s.why_not.empty()) GTEST_SKIP() << s.why_not;
  const std::string src = header + kernel_src;
  const char* text = src.c_str();
  cl_int err = 0;
  s.prog = clCreateProgramWithSource(s.ctx, 1, &text, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  // No -cl-fast-relaxed-math / -cl-mad-enable: they would void the algorithms.
  err = clBuildProgram(s.prog, 1, &s.dev, "-cl-std=CL1.2", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t len = 0;
    clGetProgramBuildInfo(s.prog, s.dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
    std::string log(len, '\0');
    clGetProgramBuildInfo(s.prog, s.dev, CL_PROGRAM_BUILD_LOG, len, log.data(), nullptr);
    FAIL() << "dfdd.cl failed to build: " << log;
  }
  constexpr int n = 100000;
  compare_ops<float>(s, "df_ops", n);
  if (s.extensions.find("cl_khr_fp64") == std::string::npos) {
    std::cout << "[dfdd-err] OpenCL device lacks cl_khr_fp64: DD and double->DF not compared\n";
    return;
  }
  compare_ops<double>(s, "dd_ops", n);
  rng_t g(run_seed() + 11);
  std::vector<double> d(n);
  std::vector<df> dev(n);
  for (auto& v : d) v = rand_word<double>(g, uni(g, -100, 100));
  run_kernel(s, "split", {to_device(s, d), to_device(s, dev)}, dev, n);
  size_t bad = 0;
  for (int i = 0; i < n; ++i) bad += !same_bits(dev[i], to_df(d[i]));
  EXPECT_EQ(bad, 0u) << "df_from_double differs from to_df";
  std::cout << "[dfdd-err] OpenCL (" << n << " inputs x 8 ops, DF and DD, + double->DF): bitwise mismatches = "
            << bad << std::endl;
}
