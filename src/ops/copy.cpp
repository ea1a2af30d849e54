// COPY: y = x. Its bandwidth is the device's measured ceiling for the other ops.
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

class CopyOp final : public Op {
 public:
  std::string name() const override { return "copy"; }
  std::string description() const override { return "y = x (the bandwidth ceiling)"; }
  // `--variant auto`: the own variant that measured best with its defaults on the H200
  // and NVIDIA's OpenCL first, then the others the device may have.
  VariantPreference preferred_variants(const nlohmann::json&) const override {
    return {{"vec16", "vec", "simple", "omp"}, "rule: preferred own copy variant"};
  }
  const OpSignature& signature() const override {
    static const OpSignature sig = vector_signature({{"x"}, {"y", true, Elem::Real, Access::Out}}, {}, false);
    return sig;
  }
  double device_bytes(const Sizes& s, Precision p) const override {
    return vector_bytes(s, p, 2);
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    auto n = static_cast<std::size_t>(s.at("n"));
    with_real(p, [&]<class T>() {
      prob->arrays.push_back(random_array<T>("x", n, seed, 1));
      prob->arrays.push_back(output_array("y", n, sizeof(T)));
      return 0;
    });
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->flops = 0;
    prob->min_bytes = 2.0 * n * info(p).bytes;
    return prob;
  }
  Validation validate(const Problem& prob, const Outputs& out) const override {
    return with_real(prob.prec, [&]<class T>() {
      const T* x = typed<T>(prob.array("x").host);
      const T* y = typed<T>(output(out, "y"));
      auto v = check_elements(y, prob.array("x").count, [&](std::size_t i) { return static_cast<long double>(x[i]); },
                              [](std::size_t) { return 0.0L; });
      v.bound = "exact: y_i == x_i";
      return v;
    });
  }
};

OpRegistrar<CopyOp> registered_copy;

}  // namespace
}  // namespace hetbench
