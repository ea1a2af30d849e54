// AXPY: r = a·x + y.
// Bound per element: fl(fl(a·x_i) + y_i) = (a·x_i(1+δ1) + y_i)(1+δ2), |δ| ≤ u, so
// |r̂_i − r_i| ≤ γ_2·(|a·x_i| + |y_i|); with an FMA the error is only u·|r_i|, which is
// smaller. The reference's own rounding adds 2·u_ref·(|a·x_i| + |y_i|).
// Double-word precisions (DF, DD) are specified with the accurate multiply (|δ1| ≤ 5u)
// and add (|δ2| ≤ 3u/(1−4u_w)) of dfdd.hpp: |r̂_i − r_i| ≤ (5u + a(1 + 5u))(|a·x_i| + |y_i|),
// a = 3u/(1−4u_w), against a long double (DF) or binary128 (DD) reference.
#include "ops/double_word.hpp"

namespace hetbench {

namespace {

class AxpyOp final : public Op {
 public:
  std::string name() const override { return "axpy"; }
  // `--variant auto`: the own variant that measured best with its defaults on the H200
  // and NVIDIA's OpenCL first (dw is DF/DD only, so one order serves every precision).
  VariantPreference preferred_variants(const nlohmann::json&) const override {
    return {{"vec", "simple", "vec16", "dw", "omp", "dw_omp"}, "rule: preferred own axpy variant"};
  }
  std::string description() const override { return "r = a*x + y"; }
  std::vector<Precision> precisions() const override {
    return {Precision::S, Precision::D, Precision::DF, Precision::DD};
  }
  const OpSignature& signature() const override {
    static const OpSignature sig = vector_signature(
        {{"x"}, {"y"}, {"r", true, Elem::Real, Access::Out}}, {"alpha", "alpha_hi", "alpha_lo"}, true);
    return sig;
  }
  std::vector<Sizes> parse_sizes(const std::string& spec) const override { return parse_vector_sizes(name(), spec); }
  double device_bytes(const Sizes& s, Precision p) const override {
    return vector_bytes(s, p, 3);
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    auto n = static_cast<std::size_t>(s.at("n"));
    // alpha exactly representable in the precision, so that every variant multiplies by
    // the same value. Every precision has alpha_hi and alpha_lo (S, D: alpha and 0), so
    // that one operand list serves all; in DF and DD alpha is the hi word.
    const double a0 = 1.0 + random_value(seed, 3, 0);
    double a_hi = 0, a_lo = 0;
    if (is_double_word(p)) {
      const bool soa = soa_storage(*prob);
      with_word(p, [&]<class W>() {
        prob->arrays.push_back(random_dw_array<W>("x", n, soa, seed, 1));
        prob->arrays.push_back(random_dw_array<W>("y", n, soa, seed, 2));
        prob->arrays.push_back(output_array("r", n, 2 * sizeof(W)));
        const dw<W> a = random_dw<W>(a0, seed, 3, 0);
        a_hi = a.hi;
        a_lo = a.lo;
        return 0;
      });
      prob->features["storage"] = soa ? "soa" : "aos";
    } else {
      with_real(p, [&]<class T>() {
        prob->arrays.push_back(random_array<T>("x", n, seed, 1));
        prob->arrays.push_back(random_array<T>("y", n, seed, 2));
        prob->arrays.push_back(output_array("r", n, sizeof(T)));
        a_hi = static_cast<T>(a0);
        return 0;
      });
    }
    prob->scalars.push_back({"alpha", false, a_hi});
    prob->scalars.push_back({"alpha_hi", false, a_hi});
    prob->scalars.push_back({"alpha_lo", false, a_lo});
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->flops = 2.0 * n;
    prob->min_bytes = 3.0 * n * info(p).bytes;
    return prob;
  }
  Validation validate(const Problem& prob, const Outputs& out) const override {
    if (is_double_word(prob.prec)) return validate_dw(prob, out);
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

 private:
  static Validation validate_dw(const Problem& prob, const Outputs& out) {
    return with_word(prob.prec, [&]<class W>() {
      using R = dw_ref_t<W>;
      const std::size_t n = prob.array("r").count;
      const dw<W> a{static_cast<W>(prob.scalar("alpha_hi")->value), static_cast<W>(prob.scalar("alpha_lo")->value)};
      const R ar = to_ref<R>(a);
      const long double a_abs = abs_ld(ar);
      const DwBounds b = dw_bounds(prob.prec);
      const long double g = b.mul + b.add * (1 + b.mul) + 2 * dw_ref_u<W>();
      auto v = with_layout(soa_storage(prob), [&](auto s) {
        constexpr bool soa = decltype(s)::value;
        const DwSpan<const W, soa> x{typed<W>(prob.array("x").host), n}, y{typed<W>(prob.array("y").host), n},
            r{typed<W>(output(out, "r")), n};
        return check_dw_elements(
            r, [&](std::size_t i) { return ar * to_ref<R>(x[i]) + to_ref<R>(y[i]); },
            [&](std::size_t i) { return g * (a_abs * std::fabs(to_long_double(x[i])) + std::fabs(to_long_double(y[i]))); });
      });
      v.bound = "|r_i - ref_i| <= (5u + a(1 + 5u) + 2u_ref)(|a x_i| + |y_i|), a = 3u/(1 - 4u_w) (accurate DW mul, add)";
      return v;
    });
  }
};

OpRegistrar<AxpyOp> registered_axpy;

}  // namespace
}  // namespace hetbench
