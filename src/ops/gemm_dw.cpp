// GEMM in DF and DD: C = α·op(A)·op(B) + β·C with double-word A, B, C, α and β, in
// interleaved (@aos), two-plane (@soa) or binary64 (@d64) storage (ops/gemm_storage.hpp).
//
// Bound per element (derived in docs/validation.md, "GEMM in DF and DD"). Every kernel
// forms Ĉ_ij = add(mul(α, ŝ_ij), mul(β, c_ij)) where ŝ_ij sums the k products
// mul(a_ip, b_pj) through k additions (the first into zero) in any order. With
// multiplies of relative error ≤ m and additions of absolute error ≤ a·(|x| + |y|),
//   |Ĉ_ij − C_ij| ≤ ((1 + m)^2 (1 + a)^(k+1) − 1)·(|α|·(|A||B|)_ij + |β|·|c_ij|),
// m = 8u(1 + 4u_w) and a = 3u(1 + 16u_w) (u = u_w^2): these cover the accurate multiply
// (JMP 2017 Alg. 12, 5u) and add (Alg. 6, 3u/(1 − 4u_w)·|x + y|) as well as Mukunoki & Imamura's
// sloppy DFmul (8u to first order) and DFadd (3u·(|x| + |y|) to first order), so one
// bound serves every kernel configuration (the ADD and MUL parameters).
// @d64 adds the conversions: inputs to DF with relative error ≤ u (Dekker split; exact
// for DD) and the result rounded to binary64 (u_d = 2^-53).
// The reference is dw_ref_t (long double for DF, binary128 for DD), exact on the inputs.
#include <cmath>

#include "ops/gemm_problem.hpp"
#include "ops/gemm_storage.hpp"

namespace hetbench::gemm_detail {

namespace {

// Relative error of each multiply and absolute error (per |x| + |y|) of each add that
// the bound allows, covering the accurate and the sloppy (Mukunoki & Imamura) operations.
struct GemmDwOps {
  double mul, add;
};
GemmDwOps gemm_dw_ops(Precision p) {
  const double u = info(p).u, uw = std::sqrt(u);
  return {8 * u * (1 + 4 * uw), 3 * u * (1 + 16 * uw)};
}

template <class W, GemmStorage S>
void compute_reference(GemmProblem& prob, std::size_t m, std::size_t n, std::size_t k, bool ta, bool tb, dw<W> alpha,
                       dw<W> beta) {
  using R = dw_ref_t<W>;
  const DwMatrix<W, S> A{typed<typename DwMatrix<W, S>::Word>(prob.array("A").host), m * k};
  const DwMatrix<W, S> B{typed<typename DwMatrix<W, S>::Word>(prob.array("B").host), k * n};
  const DwMatrix<W, S> C{typed<typename DwMatrix<W, S>::Word>(prob.array("C").host), m * n};
  const std::size_t nr = prob.rows.size(), nc = prob.cols.size();
  prob.ref_dw.assign(nr * nc, 0);
  prob.mag.assign(nr * nc, 0);
  prob.absab.assign(nr * nc, 0);
  // As the scheme variants read them: binary64 (hi + lo rounded once; d64 as stored).
  auto dbl = [](const auto& M, std::size_t i) {
    if constexpr (S == GemmStorage::d64) return static_cast<double>(M.p[i]);
    else return to_double(M[i]);
  };
  fill_stats(
      prob, k, [&](std::size_t i, std::size_t p) { return dbl(A, ta ? p * m + i : i * k + p); },
      [&](std::size_t p, std::size_t j) { return dbl(B, tb ? j * k + p : p * n + j); });
  const R a = to_ref<R>(alpha), b = to_ref<R>(beta);
  const long double aa = abs_ld(a), ab = abs_ld(b);
#pragma omp parallel if (static_cast<double>(nr) * nc * k > 16384)
  {
    std::vector<R> sum(nc);
    std::vector<long double> abs(nc);
#pragma omp for schedule(dynamic, 1)
    for (std::size_t r = 0; r < nr; ++r) {
      const std::size_t i = prob.rows[r];
      std::fill(sum.begin(), sum.end(), R(0));
      std::fill(abs.begin(), abs.end(), 0.0L);
      for (std::size_t p = 0; p < k; ++p) {
        const R aip = A.template value<R>(ta ? p * m + i : i * k + p);
        for (std::size_t q = 0; q < nc; ++q) {
          const std::size_t j = prob.cols[q];
          const R t = aip * B.template value<R>(tb ? j * k + p : p * n + j);
          sum[q] += t;
          abs[q] += abs_ld(t);
        }
      }
      for (std::size_t q = 0; q < nc; ++q) {
        const R c0 = C.template value<R>(i * n + prob.cols[q]);
        prob.ref_dw[r * nc + q] = static_cast<quad_t>(a * sum[q] + b * c0);
        prob.mag[r * nc + q] = aa * abs[q] + ab * abs_ld(c0);
        prob.absab[r * nc + q] = abs[q];
      }
    }
  }
}

}  // namespace

std::unique_ptr<Problem> make_dw_problem(const Sizes& s, Precision p, std::uint64_t seed) {
  auto prob = std::make_unique<GemmProblem>();
  prob->prec = p;
  prob->sizes = s;
  const GemmStorage st = gemm_storage(s);
  // Kernels read the storage from the sizes (metadata "defines"): always present here.
  gemm_storage_axis().set(prob->sizes, static_cast<std::size_t>(st));
  if (plain_form(s)) throw Error(fmt::format("gemm @plain (C = op(A)*op(B)) is for S and D, not {}", name(p)));
  const auto m = static_cast<std::size_t>(s.at("m")), n = static_cast<std::size_t>(s.at("n")),
             k = static_cast<std::size_t>(s.at("k"));
  const bool ta = trans_a(s), tb = trans_b(s);
  choose_checked(*prob, m, n, k, seed);
  with_word(p, [&]<class W>() {
    with_gemm_storage(st, [&](auto sc) {
      constexpr GemmStorage S = decltype(sc)::value;
      const std::pair<const char*, std::size_t> mats[] = {{"A", m * k}, {"B", k * n}, {"C", m * n}};
      for (std::uint64_t q = 0; q < 3; ++q) {
        const auto [nm, count] = mats[q];
        // d64: full 53-bit binary64 values, so that the DF conversion is inexact.
        prob->arrays.push_back(S == GemmStorage::d64 ? random_array<double>(nm, count, seed, q + 1)
                                                     : random_dw_array<W>(nm, count, S == GemmStorage::soa, seed, q + 1));
        if (q == 2) continue;
        if constexpr (S == GemmStorage::d64)
          widen_exponents<double>(prob->arrays.back(), count, erange(s), seed, q + 1);
        else
          widen_exponents<W>(prob->arrays.back(), count, erange(s), seed, q + 1, 2, S == GemmStorage::soa ? count : 1);
      }
      prob->arrays.back().access = Access::InOut;
      // Double-words (never 0 or ±1, so a variant that drops α or β cannot pass), passed
      // as words alpha_hi, alpha_lo, beta_hi, beta_lo in every storage; α and β are
      // exactly representable in binary64 too (hi + lo spans at most 2p + 5 bits).
      auto scalar = [&](std::uint64_t stream) {
        double v = random_value(seed, stream, 0);
        if (static_cast<W>(v) == W(1) || static_cast<W>(v) == W(-1)) v *= 0.75;
        return random_dw<W>(v, seed, stream, 0);
      };
      const dw<W> alpha = scalar(4), beta = scalar(5);
      prob->scalars.push_back({"alpha", false, static_cast<double>(alpha.hi)});
      prob->scalars.push_back({"alpha_hi", false, static_cast<double>(alpha.hi)});
      prob->scalars.push_back({"alpha_lo", false, static_cast<double>(alpha.lo)});
      prob->scalars.push_back({"beta", false, static_cast<double>(beta.hi)});
      prob->scalars.push_back({"beta_hi", false, static_cast<double>(beta.hi)});
      prob->scalars.push_back({"beta_lo", false, static_cast<double>(beta.lo)});
      compute_reference<W, S>(*prob, m, n, k, ta, tb, alpha, beta);
      return 0;
    });
    return 0;
  });
  prob->scalars.push_back({"m", true, static_cast<double>(m)});
  prob->scalars.push_back({"n", true, static_cast<double>(n)});
  prob->scalars.push_back({"k", true, static_cast<double>(k)});
  prob->flops = 2.0 * m * n * k;  // double-word operations, as for AXPY and DOT
  const double elem = st == GemmStorage::d64 ? sizeof(double) : static_cast<double>(info(p).bytes);
  prob->min_bytes = elem * (m * k + k * n + 2.0 * m * n);
  prob->features["layout"] = std::string(ta ? "T" : "N") + (tb ? "T" : "N");
  prob->features["storage"] = storage_name(st);
  return prob;
}

Validation validate_dw(const GemmProblem& prob, const Outputs& out) {
  return with_word(prob.prec, [&]<class W>() {
    using R = dw_ref_t<W>;
    const auto n = static_cast<std::size_t>(prob.sizes.at("n"));
    const double k = static_cast<double>(prob.sizes.at("k"));
    const GemmDwOps ops = gemm_dw_ops(prob.prec);
    const long double g = std::expm1(2 * std::log1p(static_cast<long double>(ops.mul)) +
                                     (k + 1) * std::log1p(static_cast<long double>(ops.add)));
    const long double g_ref = gamma_n(k + 2, dw_ref_u<W>());
    const GemmStorage st = gemm_storage(prob.sizes);
    const std::size_t nc = prob.cols.size(), count = prob.rows.size() * nc;
    auto at = [&](std::size_t e) { return prob.rows[e / nc] * n + prob.cols[e % nc]; };  // element of C
    Validation v;
    std::function<Validation(const std::function<long double(std::size_t)>&)> check;
    if (st == GemmStorage::d64) {
      // Inputs converted with relative error ≤ uc (DF: the split; DD: exact), the DW
      // computation on them (≤ g of the converted magnitude), then the rounding to
      // binary64 (≤ ud of the result, itself ≤ the magnitude plus the error).
      const long double uc = std::is_same_v<W, float> ? info(prob.prec).u : 0.0, ud = 0x1p-53L;
      const long double G = (1 + ud) * (g * (1 + uc) * (1 + uc) + 2 * uc + uc * uc) + ud + g_ref;
      const double* c = typed<double>(output(out, "C"));
      check = [&, c](const std::function<long double(std::size_t)>& bound) {
        return check_each(
            count,
            [&](std::size_t e) {
              const double o = c[at(e)];
              if (is_poison(o)) return ElementError{ElementError::unwritten};
              if (std::isnan(o)) return ElementError{ElementError::nan};
              const R r = static_cast<R>(prob.ref_dw[e]);
              return ElementError{ElementError::ok, abs_ld(static_cast<R>(o) - r), static_cast<long double>(r)};
            },
            bound);
      };
      v = check([&](std::size_t e) { return G * prob.mag[e]; });
      v.bound = "|C_ij - ref_ij| <= ((1 + ud)((g)(1 + uc)^2 + 2uc + uc^2) + ud + gamma_{k+2}(u_ref)) (|alpha| "
                "(|A||B|)_ij + |beta| |C0_ij|), g = (1 + m)^2 (1 + a)^(k+1) - 1, m = 8u(1 + 4u_w), a = 3u(1 + "
                "16u_w), uc = conversion to DF (u; DD: 0), ud = 2^-53";
    } else {
      // The validated elements, gathered (all of C when not sampled), as interleaved pairs.
      auto got_p = std::make_shared<std::vector<W>>(2 * count);
      auto& got = *got_p;
      with_gemm_storage(st, [&](auto sc) {
        constexpr GemmStorage S = decltype(sc)::value;
        if constexpr (S != GemmStorage::d64) {
          const std::size_t total = static_cast<std::size_t>(prob.sizes.at("m")) * n;
          const W* c = typed<W>(output(out, "C"));
          for (std::size_t e = 0; e < count; ++e) {
            // Word by word, so that a poisoned word stays poisoned.
            const std::size_t i = at(e);
            got[2 * e] = S == GemmStorage::soa ? c[i] : c[2 * i];
            got[2 * e + 1] = S == GemmStorage::soa ? c[total + i] : c[2 * i + 1];
          }
        }
        return 0;
      });
      const long double G = g + g_ref;
      check = [&, got_p](const std::function<long double(std::size_t)>& bound) {
        return check_dw_elements(
            DwSpan<const W, false>{got_p->data(), count},
            [&](std::size_t e) { return static_cast<R>(prob.ref_dw[e]); }, bound);
      };
      v = check([&](std::size_t e) { return G * prob.mag[e]; });
      v.bound = "|C_ij - ref_ij| <= ((1 + m)^2 (1 + a)^(k+1) - 1 + gamma_{k+2}(u_ref)) (|alpha| (|A||B|)_ij + |beta| "
                "|C0_ij|), m = 8u(1 + 4u_w), a = 3u(1 + 16u_w) (accurate, or Mukunoki & Imamura's DW mul and add)";
    }
    v.note = sample_note(prob);
    check_scheme(prob, out, v, g_ref, check);
    return v;
  });
}

}  // namespace hetbench::gemm_detail
