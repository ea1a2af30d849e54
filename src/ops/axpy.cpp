// AXPY: r = a·x + y.
// Bound per element: fl(fl(a·x_i) + y_i) = (a·x_i(1+δ1) + y_i)(1+δ2), |δ| ≤ u, so
// |r̂_i − r_i| ≤ γ_2·(|a·x_i| + |y_i|); with an FMA the error is only u·|r_i|, which is
// smaller. The reference's own rounding adds 2·u_ref·(|a·x_i| + |y_i|).
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

class AxpyOp final : public Op {
 public:
  std::string name() const override { return "axpy"; }
  std::string description() const override { return "r = a*x + y"; }
  std::size_t device_bytes(const Sizes& s, Precision p) const override {
    return vector_bytes(s, p, 3);
  }
  std::unique_ptr<Problem> make_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    auto n = static_cast<std::size_t>(s.at("n"));
    with_real(p, [&]<class T>() {
      prob->arrays.push_back(random_array<T>("x", n, seed, 1));
      prob->arrays.push_back(random_array<T>("y", n, seed, 2));
      prob->arrays.push_back(output_array("r", n, sizeof(T)));
      // alpha exactly representable in T, so that every variant multiplies by the same value
      prob->scalars.push_back({"alpha", false, static_cast<double>(static_cast<T>(1.0 + random_value(seed, 3, 0)))});
      return 0;
    });
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->flops = 2.0 * n;
    prob->min_bytes = 3.0 * n * info(p).bytes;
    return prob;
  }
  Validation validate(const Problem& prob, const Outputs& out) const override {
    return with_real(prob.prec, [&]<class T>() {
      const T* x = typed<T>(prob.array("x").host);
      const T* y = typed<T>(prob.array("y").host);
      const T* r = typed<T>(output(out, "r"));
      const long double a = prob.scalar("alpha")->value;
      const double u = info(prob.prec).u;
      const long double g = gamma_n(2, u) + 2 * ref_u<T>();
      auto v = check_elements(
          r, prob.array("r").count,
          [&](std::size_t i) {
            using R = ref_t<T>;
            return static_cast<long double>(static_cast<R>(a) * static_cast<R>(x[i]) + static_cast<R>(y[i]));
          },
          [&](std::size_t i) { return g * (std::fabs(a * x[i]) + std::fabs(static_cast<long double>(y[i]))); });
      v.bound = "|r_i - ref_i| <= (gamma_2 + 2u_ref)(|a x_i| + |y_i|)";
      return v;
    });
  }
};

OpRegistrar<AxpyOp> reg;

}  // namespace
}  // namespace hetbench
