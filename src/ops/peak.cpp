// PEAK: FMA throughput. out_i = x_K with x_0 = a_i, x_{k+1} = x_k·b + c, K = iters.
// Each element is an independent dependency chain of K multiply-adds, so a variant that
// keeps enough chains in flight runs at the device's FMA rate; memory traffic (2n
// elements) is negligible next to 2·n·K flops.
//
// Error bound, per element. Exact: x_k = x* + b^k·(a − x*), x* = c/(1 − b), and with
// 0 < b < 1 every x_k lies between a and x*, so
//   M := max_{k<K} (|x_k·b| + |c|) ≤ b·max(|a|, |x*|) + |c|.
// Computed: x̂_{k+1} = fl(x̂_k·b + c) = x̂_k·b + c + θ_k with |θ_k| ≤ γ_2·(|x̂_k·b| + |c|)
// (multiply then add: two roundings; an FMA rounds once, u·|x̂_k·b + c|, which is smaller).
// The error e_k = x̂_k − x_k obeys e_{k+1} = b·e_k + θ_k, e_0 = 0, so earlier errors shrink
// by b and |e_K| ≤ Σ b^{K−1−k}|θ_k| ≤ γ_2·M̂/(1 − b), where M̂ is M along the computed
// trajectory. M̂ ≤ M + b·E with E = max_k |e_k|, hence E·(1 − η) ≤ γ_2·M/(1 − b) with
// η = γ_2·b/(1 − b) (≤ 3γ_2 since b ≤ 3/4):
//   |x̂_K − x_K| ≤ γ_2·M / ((1 − b)(1 − η)).
// Reference: x_K in closed form in the higher precision R (double for S, long double for
// D). ref = x*_R = c/(1 − b) rounded once (1 − b is exact in R: b has T's fewer bits);
// what it leaves out is b^K·|a − x*| ≤ (3/4)^K·(|a| + |x*|), below 2^-424 for K = 1024, so
// |ref − x_K| ≤ u_R·|x*| + (3/4)^K·(|a| + |x*|), added to the bound.
// A caveat of the closed form: after ~60 steps every chain sits at x* to working
// precision, so validation catches wrong arithmetic and unwritten elements but cannot
// tell 1024 iterations from 100; the flop count trusts the variant to run all K.
#include <cmath>

#include "ops/vector_common.hpp"
#include "hetbench/op_extras.hpp"

namespace hetbench {

namespace {

constexpr int kIters = 1024;

class PeakOp final : public Op {
 public:
  std::string name() const override { return "peak"; }
  // Bound by arithmetic: tune rates its points by GFLOP/s.
  OpRates rates() const override { return {.by_flops = true, .shows_flops = true}; }
  std::string description() const override {
    return "FMA throughput: out_i = x_1024, x_0 = a_i, x_{k+1} = x_k*b + c (the compute ceiling)";
  }
  const OpSignature& signature() const override {
    static const OpSignature sig = [] {
      auto s = vector_signature({{"a"}, {"out", true, Elem::Real, Access::Out}}, {"b", "c"}, false);
      s.operands.push_back({"iters", false, Elem::Int});
      return s;
    }();
    return sig;
  }
  double device_bytes(const Sizes& s, Precision p) const override {
    return vector_bytes(s, p, 2);
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    auto n = static_cast<std::size_t>(s.at("n"));
    with_real(p, [&]<class T>() {
      prob->arrays.push_back(random_array<T>("a", n, seed, 1));
      prob->arrays.push_back(output_array("out", n, sizeof(T)));
      // b in [0.25, 0.75] after rounding to T (both ends are representable), so every
      // variant multiplies by the same value and the chains neither blow up nor vanish.
      const double mag = std::fabs(random_value(seed, 3, 0));
      prob->scalars.push_back({"b", false, static_cast<double>(static_cast<T>(0.25 + 0.5 * mag))});
      prob->scalars.push_back({"c", false, static_cast<double>(static_cast<T>(random_value(seed, 4, 0)))});
      return 0;
    });
    prob->scalars.push_back({"iters", true, static_cast<double>(kIters)});
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->flops = 2.0 * static_cast<double>(n) * kIters;
    prob->min_bytes = 2.0 * static_cast<double>(n) * info(p).bytes;
    prob->features = {{"iters", kIters}};
    return prob;
  }
  Validation validate(const Problem& prob, const Outputs& out) const override {
    return with_real(prob.prec, [&]<class T>() {
      using R = ref_t<T>;
      const T* a = typed<T>(prob.array("a").host);
      const T* o = typed<T>(output(out, "out"));
      const auto K = static_cast<double>(prob.scalar("iters")->value);
      const long double b = prob.scalar("b")->value, c = prob.scalar("c")->value;
      const double u = info(prob.prec).u;
      const long double g2 = gamma_n(2, u);
      const long double eta = g2 * b / (1 - b);
      // x* in R, and a safe upper bound on its magnitude.
      const R xs_r = static_cast<R>(c) / (static_cast<R>(1) - static_cast<R>(b));
      const long double xs = static_cast<long double>(xs_r);
      const long double xs_abs = std::fabs(xs) * (1 + 2 * ref_u<T>());
      // (3/4)^K, rounded up: the term the closed-form reference drops.
      const long double tail = std::exp2(K * std::log2(0.75) + 1);
      auto v = check_elements(
          o, prob.array("out").count, [&](std::size_t) { return xs; },
          [&](std::size_t i) {
            const long double ai = std::fabs(static_cast<long double>(a[i]));
            const long double m = b * std::max(ai, xs_abs) + std::fabs(c);
            return g2 * m / ((1 - b) * (1 - eta)) + ref_u<T>() * xs_abs + tail * (ai + xs_abs);
          });
      v.bound = "|out_i - x_K| <= gamma_2 max_k(|x_k b| + |c|) / ((1 - b)(1 - eta)) + reference error";
      return v;
    });
  }
};

OpRegistrar<PeakOp> registered_peak;

// reg_pressure builds (parameters MINB, MAXREG: a register cap) are timed against the
// unbounded build (both 0) of the same chains: the slowdown that spilling costs.
OpExtrasRegistrar extras("peak", {[](const Sizes& s, const ParamValues& params) -> std::optional<RelativeTime> {
                               auto minb = params.find("MINB"), maxreg = params.find("MAXREG");
                               if (minb == params.end() || maxreg == params.end()) return std::nullopt;
                               auto rest = params;
                               rest.erase("MINB");
                               rest.erase("MAXREG");
                               return RelativeTime{"spill_slowdown", format_sizes(s) + " " + format_params(rest),
                                                   minb->second == 0 && maxreg->second == 0};
                             }});

}  // namespace
}  // namespace hetbench
