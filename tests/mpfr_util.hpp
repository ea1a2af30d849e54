// Test-only bridge between double-word numbers and MPFR.
#pragma once

#include <mpfr.h>

#include <cmath>

#include "hetbench/dfdd.hpp"

namespace hetbench::test {

// 512 bits hold any sum or product of the DW values the tests draw, exactly.
inline constexpr mpfr_prec_t ref_prec = 512;

class mp {
 public:
  explicit mp(mpfr_prec_t prec = ref_prec) { mpfr_init2(v_, prec); }
  ~mp() { mpfr_clear(v_); }
  mp(const mp&) = delete;
  mp& operator=(const mp&) = delete;
  mpfr_ptr get() { return v_; }
  operator mpfr_ptr() { return v_; }

 private:
  mpfr_t v_;
};

// Exact as long as the precision covers the span from hi down to lo.
inline void set_mpfr(mpfr_ptr r, df x) {
  mpfr_set_flt(r, x.hi, MPFR_RNDN);
  mpfr_add_d(r, r, static_cast<double>(x.lo), MPFR_RNDN);
}
inline void set_mpfr(mpfr_ptr r, dd x) {
  mpfr_set_d(r, x.hi, MPFR_RNDN);
  mpfr_add_d(r, r, x.lo, MPFR_RNDN);
}

// Nearest DW of x: hi = RN(x), lo = RN(x - hi). tmp is scratch.
inline df get_df(mpfr_ptr x, mpfr_ptr tmp) {
  float hi = mpfr_get_flt(x, MPFR_RNDN);
  mpfr_sub_d(tmp, x, static_cast<double>(hi), MPFR_RNDN);
  return {hi, mpfr_get_flt(tmp, MPFR_RNDN)};
}
inline dd get_dd(mpfr_ptr x, mpfr_ptr tmp) {
  double hi = mpfr_get_d(x, MPFR_RNDN);
  mpfr_sub_d(tmp, x, hi, MPFR_RNDN);
  return {hi, mpfr_get_d(tmp, MPFR_RNDN)};
}

// |r - x| / |x| as a double; 0 when both are 0, +inf when only x is 0.
inline double rel_err(mpfr_ptr r, mpfr_ptr x, mpfr_ptr tmp) {
  if (mpfr_zero_p(x)) return mpfr_zero_p(r) ? 0.0 : INFINITY;
  mpfr_sub(tmp, r, x, MPFR_RNDN);
  mpfr_div(tmp, tmp, x, MPFR_RNDN);
  mpfr_abs(tmp, tmp, MPFR_RNDN);
  return mpfr_get_d(tmp, MPFR_RNDU);
}

}  // namespace hetbench::test
