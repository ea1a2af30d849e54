// REDUCE: s = Σ x_i, the building block of DOT and of a scan's partials.
// Bound (S, D): n − 1 additions in any order (tree, blocked, warp shuffles, atomics in
// whatever order they land): |ŝ − s| ≤ γ_{n−1}·Σ|x_i| (Higham, ASNA ch. 4), plus the
// reference's own γ_{n−1}(u_ref)·Σ|x_i| (double for S, long double for D). Atomic float
// adds make ŝ differ from run to run; every such order is inside the same bound.
// I32: exact modulo 2^32 (the kernels add as unsigned).
#include "ops/prefix_common.hpp"

namespace hetbench {

namespace {

struct ReduceProblem final : Problem {
  long double ref = 0, abs_sum = 0;
  std::uint32_t ref_int = 0;
};

class ReduceOp final : public Op {
 public:
  std::string name() const override { return "reduce"; }
  std::string description() const override { return "s = sum_i x_i"; }
  std::vector<Precision> precisions() const override { return {Precision::S, Precision::D, Precision::I32}; }
  const OpSignature& signature() const override {
    static const OpSignature sig = vector_signature({{"x"}, {"result", true, Elem::Real, Access::Out}}, {}, false);
    return sig;
  }
  double device_bytes(const Sizes& s, Precision p) const override { return vector_bytes(s, p, 1) + info(p).bytes; }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem<ReduceProblem>(s, p);
    const auto n = static_cast<std::size_t>(s.at("n"));
    with_sum_type(p, [&]<class T>() {
      using R = sum_ref_t<T>;
      prob->arrays.push_back(sum_input<T>(n, seed));
      prob->arrays.push_back(output_array("result", 1, sizeof(T)));
      std::vector<R> sum, abs;
      chunk_sums(typed<T>(prob->arrays[0].host), n, sum, abs);
      R total = 0, total_abs = 0;
      for (std::size_t c = 0; c < sum.size(); ++c) {
        total += sum[c];
        total_abs += abs[c];
      }
      if constexpr (std::is_integral_v<T>) prob->ref_int = total;
      else {
        prob->ref = total;
        prob->abs_sum = total_abs;
      }
      return 0;
    });
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->flops = static_cast<double>(n);
    prob->min_bytes = 1.0 * n * info(p).bytes;
    return prob;
  }
  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const ReduceProblem&>(base);
    const double adds = static_cast<double>(prob.sizes.at("n")) - 1;
    return with_sum_type(prob.prec, [&]<class T>() {
      const T* r = typed<T>(output(out, "result"));
      Validation v;
      if constexpr (std::is_integral_v<T>) {
        v = check_each(1, [&](std::size_t) { return sum_element(r[0], prob.ref_int); }, [](std::size_t) { return 0.0L; });
        v.bound = "exact modulo 2^32 (int32, wrap-around addition)";
      } else {
        const long double bound = (gamma_n(adds, info(prob.prec).u) + gamma_n(adds, ref_u<T>())) * prob.abs_sum;
        v = check_each(1, [&](std::size_t) { return sum_element(r[0], static_cast<sum_ref_t<T>>(prob.ref)); },
                       [&](std::size_t) { return bound; });
        v.bound = "|s - ref| <= (gamma_{n-1} + gamma_{n-1}(u_ref)) sum|x_i|";
      }
      return v;
    });
  }
};

OpRegistrar<ReduceOp> registered_reduce;

}  // namespace
}  // namespace hetbench
