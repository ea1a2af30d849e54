// DOT: s = x·y.
// Bound: |ŝ − s| ≤ γ_n·Σ|x_i·y_i| for any summation order (tree, blocked, pairwise,
// with or without FMA); beyond n·u = 1/2 the n·u bound of Jeannerod & Rump (2013).
// The reference (double for S, long double for D) adds its own γ_n(u_ref)·Σ|x_i·y_i|.
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

struct DotProblem final : Problem {
  long double ref = 0, abs_sum = 0;
};

class DotOp final : public Op {
 public:
  std::string name() const override { return "dot"; }
  std::string description() const override { return "s = x . y"; }
  std::size_t device_bytes(const Sizes& s, Precision p) const override {
    return vector_bytes(s, p, 2) + info(p).bytes;
  }
  std::unique_ptr<Problem> make_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem<DotProblem>(s, p);
    auto n = static_cast<std::size_t>(s.at("n"));
    with_real(p, [&]<class T>() {
      prob->arrays.push_back(random_array<T>("x", n, seed, 1));
      prob->arrays.push_back(random_array<T>("y", n, seed, 2));
      prob->arrays.push_back(output_array("result", 1, sizeof(T)));
      const T* x = typed<T>(prob->arrays[0].host);
      const T* y = typed<T>(prob->arrays[1].host);
      using R = ref_t<T>;
      R sum = 0, abs = 0;
#pragma omp parallel for reduction(+ : sum, abs) if (n > 65536)
      for (std::size_t i = 0; i < n; ++i) {
        R t = static_cast<R>(x[i]) * static_cast<R>(y[i]);
        sum += t;
        abs += t < 0 ? -t : t;
      }
      prob->ref = sum;
      prob->abs_sum = abs;
      return 0;
    });
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->flops = 2.0 * n;
    prob->min_bytes = 2.0 * n * info(p).bytes;
    return prob;
  }
  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const DotProblem&>(base);
    return with_real(prob.prec, [&]<class T>() {
      const double n = static_cast<double>(prob.sizes.at("n"));
      const long double bound = (gamma_n(n, info(prob.prec).u) + gamma_n(n, ref_u<T>())) * prob.abs_sum;
      auto v = check_elements(typed<T>(output(out, "result")), 1, [&](std::size_t) { return prob.ref; },
                              [&](std::size_t) { return bound; });
      v.bound = "|s - ref| <= (gamma_n + gamma_n(u_ref)) sum|x_i y_i|";
      return v;
    });
  }
};

OpRegistrar<DotOp> reg;

}  // namespace
}  // namespace hetbench
