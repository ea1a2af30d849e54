// DOT: s = x·y.
// Bound: |ŝ − s| ≤ γ_n·Σ|x_i·y_i| for any summation order (tree, blocked, pairwise,
// with or without FMA); beyond n·u = 1/2 the n·u bound of Jeannerod & Rump (2013).
// The reference (double for S, long double for D) adds its own γ_n(u_ref)·Σ|x_i·y_i|.
// Double-word precisions (DF, DD) are specified with the accurate multiply (5u) and add
// (a = 3u/(1−4u_w)) of dfdd.hpp: each product carries one multiply and at most n−1 adds
// in any order, so |ŝ − s| ≤ ((1 + 5u)(1 + γ_{n−1}(a)) − 1)·Σ|x_i·y_i|, against a long
// double (DF) or binary128 (DD) reference.
#include <omp.h>

#include "ops/double_word.hpp"

namespace hetbench {

namespace {

struct DotProblem final : Problem {
  long double ref = 0, abs_sum = 0;
  quad_t ref_dw = 0;  // DF, DD: the reference in dw_ref_t (binary128 holds either)
};

// Σ x_i·y_i and Σ|x_i·y_i| in R over n elements given by term(i), in fixed chunks per
// thread added in thread order, so the reference is the same whatever the schedule.
template <class R, class Term>
void sum_products(std::size_t n, Term term, R& sum, R& abs) {
  const int threads = n > 65536 ? omp_get_max_threads() : 1;
  std::vector<R> s(threads, R(0)), a(threads, R(0));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    R ms = 0, ma = 0;
    for (std::size_t i = n * t / nt; i < n * (t + 1) / nt; ++i) {
      const R p = term(i);
      ms += p;
      ma += p < 0 ? -p : p;
    }
    s[t] = ms;
    a[t] = ma;
  }
  sum = 0;
  abs = 0;
  for (int t = 0; t < threads; ++t) {
    sum += s[t];
    abs += a[t];
  }
}

class DotOp final : public Op {
 public:
  std::string name() const override { return "dot"; }
  // `--variant auto`: the own variant that measured best with its defaults on the H200
  // and NVIDIA's OpenCL first (dw is DF/DD only, so one order serves every precision).
  VariantPreference preferred_variants(const nlohmann::json&) const override {
    return {{"onepass", "vec16", "vec", "local", "dw", "omp", "dw_omp"}, "rule: preferred own dot variant"};
  }
  std::string description() const override { return "s = x . y"; }
  std::vector<Precision> precisions() const override {
    return {Precision::S, Precision::D, Precision::DF, Precision::DD};
  }
  const OpSignature& signature() const override {
    static const OpSignature sig = vector_signature({{"x"}, {"y"}, {"result", true, Elem::Real, Access::Out}}, {}, true);
    return sig;
  }
  std::vector<Sizes> parse_sizes(const std::string& spec) const override { return parse_vector_sizes(name(), spec); }
  double device_bytes(const Sizes& s, Precision p) const override {
    return vector_bytes(s, p, 2) + info(p).bytes;
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem<DotProblem>(s, p);
    auto n = static_cast<std::size_t>(s.at("n"));
    if (is_double_word(p)) {
      const bool soa = soa_storage(*prob);
      with_word(p, [&]<class W>() {
        using R = dw_ref_t<W>;
        prob->arrays.push_back(random_dw_array<W>("x", n, soa, seed, 1));
        prob->arrays.push_back(random_dw_array<W>("y", n, soa, seed, 2));
        prob->arrays.push_back(output_array("result", 1, 2 * sizeof(W)));
        R sum = 0, abs = 0;
        with_layout(soa, [&](auto l) {
          const DwSpan<const W, decltype(l)::value> x{typed<W>(prob->arrays[0].host), n},
              y{typed<W>(prob->arrays[1].host), n};
          sum_products<R>(n, [&](std::size_t i) { return to_ref<R>(x[i]) * to_ref<R>(y[i]); }, sum, abs);
        });
        prob->ref_dw = sum;
        prob->abs_sum = static_cast<long double>(abs);
        return 0;
      });
      prob->features["storage"] = soa ? "soa" : "aos";
    } else {
      with_real(p, [&]<class T>() {
        prob->arrays.push_back(random_array<T>("x", n, seed, 1));
        prob->arrays.push_back(random_array<T>("y", n, seed, 2));
        prob->arrays.push_back(output_array("result", 1, sizeof(T)));
        const T* x = typed<T>(prob->arrays[0].host);
        const T* y = typed<T>(prob->arrays[1].host);
        using R = ref_t<T>;
        R sum = 0, abs = 0;
        sum_products<R>(n, [&](std::size_t i) { return static_cast<R>(x[i]) * static_cast<R>(y[i]); }, sum, abs);
        prob->ref = sum;
        prob->abs_sum = abs;
        return 0;
      });
    }
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->flops = 2.0 * n;
    prob->min_bytes = 2.0 * n * info(p).bytes;
    return prob;
  }
  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const DotProblem&>(base);
    const double n = static_cast<double>(prob.sizes.at("n"));
    if (is_double_word(prob.prec)) {
      return with_word(prob.prec, [&]<class W>() {
        using R = dw_ref_t<W>;
        const DwBounds b = dw_bounds(prob.prec);
        // (1 + 5u)(1 + γ) − 1 expanded: 1 + u would round away in any binary type here.
        const long double ga = gamma_n(n - 1, b.add);
        const long double g = b.mul + ga * (1 + b.mul) + gamma_n(n, dw_ref_u<W>());
        const long double bound = g * prob.abs_sum;
        const DwSpan<const W, false> r{typed<W>(output(out, "result")), 1};
        auto v = check_dw_elements(r, [&](std::size_t) { return static_cast<R>(prob.ref_dw); },
                                   [&](std::size_t) { return bound; });
        v.bound = "|s - ref| <= ((1 + 5u)(1 + gamma_{n-1}(a)) - 1 + gamma_n(u_ref)) sum|x_i y_i|, a = 3u/(1 - 4u_w)";
        return v;
      });
    }
    return with_real(prob.prec, [&]<class T>() {
      const long double bound = (gamma_n(n, info(prob.prec).u) + gamma_n(n, ref_u<T>())) * prob.abs_sum;
      auto v = check_elements(typed<T>(output(out, "result")), 1, [&](std::size_t) { return prob.ref; },
                              [&](std::size_t) { return bound; });
      v.bound = "|s - ref| <= (gamma_n + gamma_n(u_ref)) sum|x_i y_i|";
      return v;
    });
  }
};

OpRegistrar<DotOp> registered_dot;

}  // namespace
}  // namespace hetbench
