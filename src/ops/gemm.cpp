// GEMM: C = α·op(A)·op(B) + β·C, row-major storage (as GEMMbench). op(A) is m×k and
// op(B) is k×n; with ta = 1, A is stored transposed (k×m), with tb = 1, B is stored n×k.
//
// Bound per element. Ĉ_ij = fl(fl(α·ŝ_ij) + fl(β·c_ij)) where ŝ_ij is the computed sum
// of the k products a_ip·b_pj. Any summation order gives ŝ = Σ a_ip b_pj (1+θ_k,p),
// |θ_k| ≤ γ_k (k−1 additions and one multiplication on each product's path). The
// multiply by α adds one rounding, the multiply by β one and the final addition one,
// so every term of α·Σ a b carries at most k+2 roundings and β·c at most 2:
//   |Ĉ_ij − C_ij| ≤ γ_{k+2}·(|α|·(|A||B|)_ij + |β|·|c_ij|).
// The same count covers the usual reorganisations: α folded into A while packing,
// β·C written first and then k-blocks of α·(partial sum) added into C (a block of
// k_b products added through b blocks has k_b + b + 1 ≤ k + 2 roundings), and FMA
// contraction (fewer roundings). The reference, computed in ref_t (double for S, long
// double for D), adds its own γ_{k+2}(u_ref) times the same quantity.
//
// Large problems (m·n·k > 2^27) validate a seeded sample of 64 rows × 64 columns (their
// 4096 elements' full dot products, with the first and last row and column always in),
// so that validation stays O(64·64·k) instead of O(m·n·k).
//
// @plain (kernels without α and β, C = op(A)·op(B)): α = 1, β = 0 and C only written, so
// Ĉ_ij = ŝ_ij and the bound is γ_k·(|A||B|)_ij (k roundings on each product's path).
//
// DF and DD (double-word A, B, C, α, β; storage @aos, @soa or @d64 for binary64
// operands) are in src/ops/gemm_dw.cpp, with their bound.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "util/ranges.hpp"
#include "ops/gemm_problem.hpp"
#include "ops/gemm_rules.hpp"
#include "ops/gemm_shape_model.hpp"
#include "ops/gemm_storage.hpp"

namespace hetbench {

namespace {

using gemm_detail::GemmProblem;

std::string malformed(const std::string& token) {
  return fmt::format(
      "malformed GEMM size '{}': expected N, MxNxK or a range, optionally @NN|NT|TN|TT, @plain, @erange=4|10|20|40, "
      "@iter=N and for DF and DD @aos|soa|d64",
      token);
}

class GemmOp final : public Op {
 public:
  std::string name() const override { return "gemm"; }
  std::string description() const override { return "C = alpha*op(A)*op(B) + beta*C (row-major; layouts NN, NT, TN, TT)"; }
  std::vector<Precision> precisions() const override {
    return {Precision::S, Precision::D, Precision::DF, Precision::DD};
  }
  const OpSignature& signature() const override {
    using namespace gemm_detail;
    static const OpSignature sig{
        {{"A"}, {"B"}, {"C", true, Elem::Real, Access::InOut},
         // Every precision has the words of α and β (S, D: the value and 0), so that one
         // operand list serves all.
         {"alpha", false}, {"alpha_hi", false}, {"alpha_lo", false},
         {"beta", false}, {"beta_hi", false}, {"beta_lo", false},
         {"m", false, Elem::Int}, {"n", false, Elem::Int}, {"k", false, Elem::Int}},
        {Axis::dimension("m", "rows of C"), Axis::dimension("n", "columns of C"), Axis::dimension("k", "inner dimension"),
         trans_a_axis(), trans_b_axis(), gemm_storage_axis(), form_axis(), erange_axis(), iter_axis()}};
    return sig;
  }

  // Tuning (ops/gemm_rules.hpp): classes of m, n, k, the kernel order, rated by flops.
  ClassCoords problem_class(const nlohmann::json& f) const override { return gemm_detail::gemm_class(f); }
  VariantPreference preferred_variants(const nlohmann::json&) const override { return gemm_detail::gemm_preference(); }
  OpRates rates() const override { return {.by_flops = true, .shows_flops = true}; }
  std::vector<ModelledConfig> modelled_configs(const Variant& v, const Device& dev, const Sizes& s, Precision p,
                                               const ParamValues& base, const std::vector<std::string>& fixed,
                                               std::size_t top) const override {
    std::vector<ModelledConfig> out;
    for (auto& c : gemm_model::rank_gemm_configs(v, dev, s, p, base, fixed, top))
      out.push_back({std::move(c.values), "model: " + c.predicted.why});
    return out;
  }

  // DIMS[@LAYOUT][@STORAGE] (suffixes in either order); DIMS is a comma list of orders,
  // ranges of orders or MxNxK triples.
  std::vector<Sizes> parse_sizes(const std::string& token) const override {
    using namespace gemm_detail;
    std::string dims = token;
    Sizes common;  // the suffixes' axes, the same for every size of the token
    trans_a_axis().set(common, std::size_t{0});
    trans_b_axis().set(common, std::size_t{0});
    bool layout = false, storage = false, form = false, erange = false, iter = false;
    if (auto at = token.find('@'); at != std::string::npos) {
      dims = token.substr(0, at);
      while (at != std::string::npos) {
        const auto next = token.find('@', at + 1);
        std::string suf = token.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
        at = next;
        const std::string raw = suf;  // as written, for messages
        if (suf.find(',') != std::string::npos)
          throw Error(fmt::format("GEMM size '{}': a suffix (@{}) applies to every size of the list before it and "
                                  "ends the token; give each layout or storage its own --size (or sizes entry), "
                                  "e.g. --size 256@NT --size 256@TN",
                                  token, suf.substr(0, suf.find(','))));
        for (auto& c : suf) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (suf.rfind("ITER=", 0) == 0) {
          long long v = 0;
          const std::string num = suf.substr(5);
          const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
          if (iter || ec != std::errc{} || end != num.data() + num.size() || v < 1 || v > kMaxIter)
            throw Error(fmt::format("GEMM size '{}': iter must be a whole number from 1 to {} (once), not '@{}'", token,
                                    kMaxIter, raw));
          if (v > 1) common["iter"] = v;
          iter = true;
          continue;
        }
        if (suf.rfind("ERANGE=", 0) == 0) {
          if (erange || !erange_axis().set(common, suf.substr(7)))
            throw Error(fmt::format("GEMM size '{}': erange must be one of 4, 10, 20, 40 (once)", token));
          erange = true;
          continue;
        }
        bool* seen = gemm_storage_axis().set(common, suf) ? &storage : form_axis().set(common, suf) ? &form : nullptr;
        if (!seen) {
          if (suf.size() != 2 || !trans_a_axis().set(common, suf.substr(0, 1)) ||
              !trans_b_axis().set(common, suf.substr(1, 1)))
            throw Error(malformed(token));
          seen = &layout;
        }
        if (*seen) throw Error(malformed(token));
        *seen = true;
      }
    }
    if (dims.empty()) throw Error(malformed(token));
    // Each iteration computes C = op(A)·op(B) anew (gemm_problem.hpp): @iter means @plain.
    if (common.contains("iter")) {
      if (form && !plain_form(common))
        throw Error(fmt::format("GEMM size '{}': @iter multiplies in the plain form (C = op(A)·op(B) each time, as "
                                "the walk-through's loop does); leave out @scaled",
                                token));
      form_axis().set(common, std::string("plain"));
    }
    std::vector<std::array<long long, 3>> mnk;
    std::size_t start = 0;
    while (start <= dims.size()) {
      std::size_t comma = dims.find(',', start);
      std::string item = dims.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? dims.size() + 1 : comma + 1;
      if (item.empty()) throw Error(malformed(token));
      if (item.find_first_of("xX") != std::string::npos) {
        std::array<long long, 3> v{};
        std::size_t pos = 0;
        for (int d = 0; d < 3; ++d) {
          std::size_t x = item.find_first_of("xX", pos);
          if ((d < 2) == (x == std::string::npos)) throw Error(malformed(token));  // exactly two 'x'
          std::string part = item.substr(pos, d < 2 ? x - pos : std::string::npos);
          std::vector<long long> vals;
          try {
            vals = parse_int_list(part, "GEMM size");
          } catch (const Error&) {
            throw Error(malformed(token));
          }
          if (vals.size() != 1) throw Error(malformed(token));  // a range inside MxNxK is ambiguous
          v[d] = vals[0];
          pos = x + 1;
        }
        mnk.push_back(v);
      } else {
        std::vector<long long> vals;
        try {
          vals = parse_int_list(item, "GEMM size");
        } catch (const Error&) {
          throw Error(malformed(token));
        }
        for (long long o : vals) mnk.push_back({o, o, o});
      }
    }
    std::vector<Sizes> out;
    for (const auto& v : mnk) {
      for (int d = 0; d < 3; ++d)
        if (v[d] < 1)
          throw Error(fmt::format("GEMM size '{}': {} = {} is impossible: gemm needs m, n, k >= 1", token, "mnk"[d],
                                  v[d]));
      Sizes s = common;
      s["m"] = v[0];
      s["n"] = v[1];
      s["k"] = v[2];
      out.push_back(s);
    }
    return out;
  }

  double device_bytes(const Sizes& s, Precision p) const override {
    const double m = s.at("m"), n = s.at("n"), k = s.at("k");
    const bool d64 = is_double_word(p) && gemm_storage(s) == GemmStorage::d64;
    // C twice: the runner keeps a pristine copy.
    return (m * k + k * n + 2 * m * n) * static_cast<double>(d64 ? sizeof(double) : info(p).bytes);
  }

  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    if (is_double_word(p)) return gemm_detail::make_dw_problem(s, p, seed);
    auto prob = std::make_unique<GemmProblem>();
    prob->prec = p;
    prob->sizes = s;
    const double m = s.at("m"), n = s.at("n"), k = s.at("k");
    const bool ta = gemm_detail::trans_a(s), tb = gemm_detail::trans_b(s), plain = gemm_detail::plain_form(s);
    with_real(p, [&]<class T>() {
      prob->arrays.push_back(random_array<T>("A", m * k, seed, 1));
      prob->arrays.push_back(random_array<T>("B", k * n, seed, 2));
      gemm_detail::widen_exponents<T>(prob->arrays[0], m * k, gemm_detail::erange(s), seed, 1);
      gemm_detail::widen_exponents<T>(prob->arrays[1], k * n, gemm_detail::erange(s), seed, 2);
      if (plain) {
        prob->arrays.push_back(output_array("C", m * n, sizeof(T)));
      } else {
        prob->arrays.push_back(random_array<T>("C", m * n, seed, 3));
        prob->arrays.back().access = Access::InOut;
      }
      const T alpha = plain ? T(1) : random_coefficient<T>(seed, 4), beta = plain ? T(0) : random_coefficient<T>(seed, 5);
      for (const char* nm : {"alpha", "alpha_hi"}) prob->scalars.push_back({nm, false, static_cast<double>(alpha)});
      prob->scalars.push_back({"alpha_lo", false, 0.0});
      for (const char* nm : {"beta", "beta_hi"}) prob->scalars.push_back({nm, false, static_cast<double>(beta)});
      prob->scalars.push_back({"beta_lo", false, 0.0});
      compute_reference<T>(*prob, m, n, k, ta, tb, alpha, beta, seed);
      return 0;
    });
    prob->scalars.push_back({"m", true, static_cast<double>(m)});
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->scalars.push_back({"k", true, static_cast<double>(k)});
    // @iter=N: N products, each reading A and B and writing C at least.
    const double iter = static_cast<double>(gemm_detail::iterations(s));
    prob->flops = iter * 2.0 * m * n * k;
    prob->min_bytes = iter * static_cast<double>(info(p).bytes) * (m * k + k * n + (plain ? 1.0 : 2.0) * m * n);
    prob->features["layout"] = std::string(ta ? "T" : "N") + (tb ? "T" : "N");
    if (iter > 1) prob->features["iter"] = iter;
    return prob;
  }

  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const GemmProblem&>(base);
    if (is_double_word(prob.prec)) return gemm_detail::validate_dw(prob, out);
    return with_real(prob.prec, [&]<class T>() -> Validation {
      const auto n = static_cast<std::size_t>(prob.sizes.at("n"));
      const double k = static_cast<double>(prob.sizes.at("k"));
      const bool plain = gemm_detail::plain_form(prob.sizes);
      const double roundings = plain ? k : k + 2;
      const long double g = gamma_n(roundings, info(prob.prec).u) + gamma_n(roundings, ref_u<T>());
      const T* c = typed<T>(output(out, "C"));
      const std::size_t nc = prob.cols.size();
      // The validated elements, gathered (all of C when not sampled), so that the usual
      // check (poison, NaN, bound) applies unchanged.
      std::vector<T> got(prob.rows.size() * nc);
      for (std::size_t r = 0; r < prob.rows.size(); ++r)
        for (std::size_t q = 0; q < nc; ++q) got[r * nc + q] = c[prob.rows[r] * n + prob.cols[q]];
      auto v = check_elements(
          got.data(), got.size(), [&](std::size_t i) { return prob.ref[i]; },
          [&](std::size_t i) { return g * prob.mag[i]; });
      v.bound = plain ? "|C_ij - ref_ij| <= (gamma_k + gamma_k(u_ref)) (|A||B|)_ij (plain: C = op(A) op(B))"
                      : "|C_ij - ref_ij| <= (gamma_{k+2} + gamma_{k+2}(u_ref)) (|alpha| (|A||B|)_ij + |beta| |C0_ij|)";
      v.note = gemm_detail::sample_note(prob);
      gemm_detail::check_scheme(prob, out, v, gamma_n(roundings, ref_u<T>()), [&](const auto& bound) {
        return check_elements(got.data(), got.size(), [&](std::size_t i) { return prob.ref[i]; }, bound);
      });
      return v;
    });
  }

 private:
  // Reference and magnitude |α|(|A||B|)_ij + |β||c_ij| of every validated element, in
  // ref_t<T>, once per problem (validation then runs once per variant and parameter set).
  template <class T>
  static void compute_reference(GemmProblem& prob, std::size_t m, std::size_t n, std::size_t k, bool ta, bool tb,
                                T alpha, T beta, std::uint64_t seed) {
    using R = ref_t<T>;
    const T* A = typed<T>(prob.array("A").host);
    const T* B = typed<T>(prob.array("B").host);
    // Plain problems have no initial C (β = 0).
    const T* C = prob.array("C").host.empty() ? nullptr : typed<T>(prob.array("C").host);
    gemm_detail::choose_checked(prob, m, n, k, seed);
    const std::size_t nr = prob.rows.size(), nc = prob.cols.size();
    prob.ref.assign(nr * nc, 0);
    prob.mag.assign(nr * nc, 0);
    prob.absab.assign(nr * nc, 0);
    gemm_detail::fill_stats(
        prob, k, [&](std::size_t i, std::size_t p) { return static_cast<double>(A[ta ? p * m + i : i * k + p]); },
        [&](std::size_t p, std::size_t j) { return static_cast<double>(B[tb ? j * k + p : p * n + j]); });
    const R a = alpha, b = beta;
    const R aa = a < 0 ? -a : a, ab = b < 0 ? -b : b;
#pragma omp parallel if (static_cast<double>(nr) * nc * k > 65536)
    {
      std::vector<R> sum(nc), abs(nc);
#pragma omp for schedule(dynamic, 1)
      for (std::size_t r = 0; r < nr; ++r) {
        const std::size_t i = prob.rows[r];
        std::fill(sum.begin(), sum.end(), R(0));
        std::fill(abs.begin(), abs.end(), R(0));
        // i-p-j order: the inner loop runs along a row of B when B is not transposed.
        for (std::size_t p = 0; p < k; ++p) {
          const R aip = A[ta ? p * m + i : i * k + p];
          for (std::size_t q = 0; q < nc; ++q) {
            const std::size_t j = prob.cols[q];
            const R t = aip * static_cast<R>(B[tb ? j * k + p : p * n + j]);
            sum[q] += t;
            abs[q] += t < 0 ? -t : t;
          }
        }
        for (std::size_t q = 0; q < nc; ++q) {
          const R c0 = C ? static_cast<R>(C[i * n + prob.cols[q]]) : R(0);
          prob.ref[r * nc + q] = static_cast<long double>(a * sum[q] + b * c0);
          prob.mag[r * nc + q] = static_cast<long double>(aa * abs[q] + ab * (c0 < 0 ? -c0 : c0));
          prob.absab[r * nc + q] = static_cast<long double>(abs[q]);
        }
      }
    }
  }
};

OpRegistrar<GemmOp> registered_gemm;

}  // namespace
}  // namespace hetbench
