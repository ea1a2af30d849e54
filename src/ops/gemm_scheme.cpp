// The splitting schemes' own error bounds (derived in docs/validation.md, "GEMM by
// splitting schemes"), checked beside the precision's GEMM bound. Per validated element,
// with e_i, f_j the exponents of row i of A and column j of B (max < 2^e), their sums of
// magnitudes, |A||B| and k:
//   fixed (scheme I, s slices of b bits): |P^ - AB| <= 2^-sb (k s 2^(e_i+f_j) + 2^e_i sum_p |b_pj|)
//                                           + gamma_{N+2}(2^-53) (|A||B|)_ij, N = s(s+1)/2
//   crt (scheme II, integers of P bits):  |P^ - AB| <= 2^(f_j-P) sum_p |a_ip| + 2^(e_i-P) sum_p |b_pj|
//                                           + 2^-53 |P^| (DD Horner, then binary64)
//   split (s terms of b bits, binary32 accumulation acc_u, G GEMMs into C):
//     |C^ - C| <= |alpha| d_rep (|A||B|)_ij + gamma_{k+G+2}(acc_u) (|alpha| F (|A||B|)_ij + |beta||c_ij|)
// and for fixed and crt the output stage C = alpha P^ + beta C (binary64 or DF operations).
#include "ops/gemm_problem.hpp"
#include "ops/gemm_scheme.hpp"

namespace hetbench::gemm_detail {

namespace {

using gemm_scheme::Kind;
using gemm_scheme::Scheme;

long double gamma_ld(long double n, long double u) { return n * u / (1 - n * u); }

}  // namespace

void check_scheme(const GemmProblem& prob, const Outputs& out, Validation& v, long double ref_g,
                  const std::function<Validation(const std::function<long double(std::size_t)>&)>& check) {
  const auto it = out.find("scheme");
  if (it == out.end()) return;
  const Scheme sc = Scheme::decode(it->second);
  const long double k = static_cast<long double>(prob.sizes.at("k"));
  const long double alpha = std::fabs(prob.scalar("alpha_hi")->value) + std::fabs(prob.scalar("alpha_lo")->value);
  const bool df = prob.prec == Precision::DF;
  const bool d64 = df && gemm_storage(prob.sizes) == GemmStorage::d64;
  const long double ud = 0x1p-53L;
  const std::size_t nc = prob.cols.size();
  const int s = sc.slices, b = sc.bits;
  // Output stage: D: fl(fl(alpha x) + fl(beta c)); DF: the double-word mul and add
  // (relative errors m and a as in gemm_dw.cpp) after x is rounded to DF (2^-47).
  const long double uo = df ? 0 : ud;
  const long double m = df ? 8 * info(Precision::DF).u * (1 + 4 * 0x1p-24) : 0;
  const long double a = df ? 3 * info(Precision::DF).u * (1 + 16 * 0x1p-24) : 0;
  long double d_rep = 0, F = 1;
  if (sc.kind == Kind::split) {
    const long double up = std::ldexp(1.0L, -b);
    for (int t = 0; t < s; ++t)
      for (int u = 0; u < s; ++u)
        if (!sc.full && t + u > s - 1) d_rep += std::pow(up, t + u);
    d_rep = d_rep * (1 + up) * (1 + up) + std::pow(up, s) * (2 + 3 * std::pow(up, s));
    F = (1 + up) * (1 + up) / ((1 - up) * (1 - up));
  }
  const long double g_split = gamma_ld(k + sc.gemms() + 2, sc.acc_u);
  const long double g_fixed = gamma_ld(sc.gemms() + 2, ud);
  auto bound = [&](std::size_t e) -> long double {
    const std::size_t r = e / nc, q = e % nc;
    const long double ab = prob.absab[e], mag = prob.mag[e];
    const long double ref = ref_g * mag;
    if (sc.kind == Kind::split) {
      const long double bc = std::max(0.0L, mag - alpha * ab);
      return alpha * d_rep * ab + g_split * (alpha * F * ab + bc) + ref;
    }
    long double ep;
    const int ei = prob.row_e[r], fj = prob.col_e[q];
    if (sc.kind == Kind::fixed) {
      ep = std::ldexp(k * s * std::ldexp(1.0L, ei + fj) + std::ldexp(prob.col_abs[q], ei), -s * b) + g_fixed * ab;
    } else {
      ep = std::ldexp(prob.row_abs[r], fj - b) + std::ldexp(prob.col_abs[q], ei - b);
      ep += ud * (ab + ep);
    }
    if (df) {
      ep += 0x1p-52L * ab;             // A, B read as binary64 (hi + lo rounded)
      ep += 0x1p-47L * (ab + ep);      // P^ rounded to DF
      long double g = (1 + m) * (1 + a) - 1;
      // @d64: C0 converted to DF (2^-48 relative) and the result rounded to binary64.
      if (d64) g += 0x1p-48L + 0x1p-52L;
      return alpha * ep * (1 + m) * (1 + a) + g * (mag + alpha * ep) + ref;
    }
    return alpha * ep * (1 + 5 * uo) + gamma_ld(2, uo) * mag + ref;
  };
  const Validation vs = check(bound);
  std::string words;
  switch (sc.kind) {
    case Kind::fixed:
      words = fmt::format(
          "Ozaki scheme I, {} slices of {} bits: |P - AB|_ij <= 2^-{} (k {} 2^(e_i+f_j) + 2^e_i sum_p |b_pj|) + "
          "gamma_{}(2^-53) (|A||B|)_ij, then alpha P + beta C",
          s, b, s * b, s, sc.gemms() + 2);
      break;
    case Kind::crt:
      words = fmt::format(
          "Ozaki scheme II, {} moduli, {}-bit integers: |P - AB|_ij <= 2^(f_j-{}) sum_p |a_ip| + 2^(e_i-{}) sum_p "
          "|b_pj| + 2^-53 |P|, then alpha P + beta C",
          s, b, b, b);
      break;
    case Kind::split:
      words = fmt::format(
          "split into {} terms of {} bits ({} GEMMs): |C - ref|_ij <= |alpha| {:.3g} (|A||B|)_ij + gamma_(k+{})({:a}) "
          "(|alpha| (|A||B|)_ij + |beta||C0_ij|)",
          s, b, sc.gemms(), static_cast<double>(d_rep), sc.gemms() + 2, sc.acc_u);
      break;
  }
  // The record keeps the precision's check in max_err_over_bound and over_bound (a point
  // passes only within it, so a scheme with too few slices or moduli fails); the
  // scheme's own check goes into bound and note, and an element over the scheme's bound
  // counts as over the bound too.
  const bool prec_ok = v.passed(), scheme_ok = vs.over_bound == 0 && vs.max_ratio <= 1.0;
  v.bound += "; scheme's own bound: " + words;
  const std::string what = fmt::format(
      "scheme {}: max error/scheme bound {:.3g} ({}); max error/{} GEMM bound {:.3g} ({})", sc.label, vs.max_ratio,
      scheme_ok ? "met" : "MISSED", name(prob.prec), v.max_ratio,
      prec_ok ? "met" : scheme_ok ? "missed: the scheme with these slices or moduli does not reach the precision"
                                  : "missed");
  v.note = v.note.empty() ? what : v.note + "; " + what;
  if (!scheme_ok) {
    v.over_bound = std::max(v.over_bound, vs.over_bound);
    v.max_ratio = std::max(v.max_ratio, vs.max_ratio);
  }
}

}  // namespace hetbench::gemm_detail
