// Helpers shared by the double-word tests (tests/test_dfdd_*.cpp): random words and
// double-words near chosen exponents, the operations under test with their bounds, input
// sets, and bitwise comparison.
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hetbench/dfdd.hpp"

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
std::string describe_inputs(const in3<T>& in) {
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
