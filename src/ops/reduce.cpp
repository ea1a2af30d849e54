// REDUCE: s = Σ x_i (@sum, the default), the building block of DOT and of a scan's
// partials; the transform-reduces of CUB's study, Σ x_i² (@sumsq) and its square root
// (@norm2); and max_i x_i (@max). The kind is a size-token suffix ("2^28@norm2"), the
// optional size key "kind" (0..3, the kernels' FN define; absent means sum).
// Bounds (S, D), Higham, ASNA ch. 3–4, each plus the reference's own error at u_ref
// (double for S, long double for D):
//   sum:   n − 1 additions in any order (tree, blocked, warp shuffles, atomics in
//          whatever order they land): |ŝ − s| ≤ γ_{n−1}·Σ|x_i|;
//   sumsq: n products then n − 1 additions of non-negative terms: |ŝ − s| ≤ γ_n·Σx_i²;
//   norm2: the square root of that sum, one more rounding: r̂ = √(s(1+θ))·(1+δ),
//          |θ| ≤ γ_n, |δ| ≤ u, so |r̂ − r| ≤ ((1+u)·√(1+γ_n) − 1)·r ≤ (u + (1+u)·γ_n/2)·r;
//   max:   exact (a comparison rounds nothing).
// Atomic float adds make ŝ differ from run to run; every such order is inside the bound.
// I32: sums and sums of squares exact modulo 2^32 (the kernels add and multiply as
// unsigned), max over int32 exact; a norm of integers is not offered.
#include "ops/prefix_common.hpp"

namespace hetbench {

namespace {

enum class ReduceKind { Sum, SumSq, Norm2, Max };

const Axis& reduce_kind_axis() {
  static const Axis a = Axis::choice("kind", {"sum", "sumsq", "norm2", "max"},
                                     "sum, sum of squares, its square root, or maximum", /*indicators=*/false,
                                     /*optional=*/true);
  return a;
}

struct ReduceProblem final : Problem {
  ReduceKind kind = ReduceKind::Sum;
  long double ref = 0, abs_sum = 0;  // the result, and Σ|x_i| (sum) or Σx_i² (sumsq, norm2)
  std::uint32_t ref_int = 0;
};

// The reference of `kind` over x, chunked as chunk_sums so that it does not depend on
// the threads: into ref_int (I32) or ref and abs_sum.
template <class T>
void reduce_reference(const T* x, std::size_t n, ReduceProblem& prob) {
  using R = sum_ref_t<T>;
  if (prob.kind == ReduceKind::Max) {
    T m = x[0];
#pragma omp parallel for reduction(max : m) schedule(static) if (n > 65536)
    for (std::size_t i = 0; i < n; ++i) m = std::max(m, x[i]);
    if constexpr (std::is_integral_v<T>) prob.ref_int = static_cast<std::uint32_t>(m);
    else prob.ref = m;
    return;
  }
  const bool squares = prob.kind != ReduceKind::Sum;
  std::vector<R> sum, abs;
  if (squares) chunk_sums(x, n, sum, abs, [](R v) { return v * v; });
  else chunk_sums(x, n, sum, abs);
  R total = 0, total_abs = 0;
  for (std::size_t c = 0; c < sum.size(); ++c) {
    total += sum[c];
    total_abs += abs[c];
  }
  if constexpr (std::is_integral_v<T>) prob.ref_int = total;
  else {
    prob.ref = prob.kind == ReduceKind::Norm2 ? std::sqrt(static_cast<long double>(total)) : total;
    prob.abs_sum = total_abs;
  }
}

// The bound on |result − ref| of a floating-point kind over n elements (header).
long double reduce_bound(const ReduceProblem& p, double u, double ur) {
  const double n = static_cast<double>(p.sizes.at("n"));
  switch (p.kind) {
    case ReduceKind::Sum: return (gamma_n(n - 1, u) + gamma_n(n - 1, ur)) * p.abs_sum;
    case ReduceKind::SumSq: return (gamma_n(n, u) + gamma_n(n, ur)) * p.abs_sum;
    case ReduceKind::Norm2: {
      // (1+u)·√(1+γ) − 1 ≤ u + (1+u)·γ/2, written so that it does not cancel to 0.
      auto rel = [&](double uu) { return uu + (1 + uu) * gamma_n(n, uu) / 2; };
      return (rel(u) + rel(ur)) * p.ref;
    }
    case ReduceKind::Max: return 0;
  }
  return 0;
}

const char* reduce_bound_text(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum: return "|s - ref| <= (gamma_{n-1} + gamma_{n-1}(u_ref)) sum|x_i|";
    case ReduceKind::SumSq: return "|s - ref| <= (gamma_n + gamma_n(u_ref)) sum x_i^2";
    case ReduceKind::Norm2: return "|r - ref| <= (u + (1+u) gamma_n/2 + the same at u_ref) ref, r = sqrt(sum x_i^2)";
    case ReduceKind::Max: return "exact (max rounds nothing)";
  }
  return "";
}

class ReduceOp final : public Op {
 public:
  std::string name() const override { return "reduce"; }
  std::string description() const override {
    return "s = sum_i x_i (@sum), sum_i x_i^2 (@sumsq), its square root (@norm2) or max_i x_i (@max)";
  }
  std::vector<Precision> precisions() const override { return {Precision::S, Precision::D, Precision::I32}; }
  const OpSignature& signature() const override {
    static const OpSignature sig = [] {
      auto s = vector_signature({{"x"}, {"result", true, Elem::Real, Access::Out}}, {}, false);
      s.axes.push_back(reduce_kind_axis());
      return s;
    }();
    return sig;
  }
  double device_bytes(const Sizes& s, Precision p) const override { return vector_bytes(s, p, 1) + info(p).bytes; }
  std::string problem_misfit(const Sizes& s, Precision p) const override {
    if (reduce_kind_axis().get<ReduceKind>(s) == ReduceKind::Norm2 && p == Precision::I32)
      return "@norm2 has no I32 version: the square root of an integer sum is not an integer";
    return "";
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    const auto kind = reduce_kind_axis().get<ReduceKind>(s);
    if (auto why = problem_misfit(s, p); !why.empty()) throw Error("reduce " + why);
    auto prob = new_problem<ReduceProblem>(s, p);
    prob->kind = kind;
    const auto n = static_cast<std::size_t>(s.at("n"));
    with_sum_type(p, [&]<class T>() {
      prob->arrays.push_back(sum_input<T>(n, seed));
      prob->arrays.push_back(output_array("result", 1, sizeof(T)));
      reduce_reference(typed<T>(prob->arrays[0].host), n, *prob);
      return 0;
    });
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    // A square and an addition per element for the transform-reduces.
    prob->flops = (kind == ReduceKind::SumSq || kind == ReduceKind::Norm2 ? 2.0 : 1.0) * n;
    prob->min_bytes = 1.0 * n * info(p).bytes;
    if (s.contains("kind")) prob->features["kind"] = reduce_kind_axis().value(s);
    return prob;
  }
  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const ReduceProblem&>(base);
    return with_sum_type(prob.prec, [&]<class T>() {
      const T* r = typed<T>(output(out, "result"));
      Validation v;
      if constexpr (std::is_integral_v<T>) {
        v = check_each(1, [&](std::size_t) { return sum_element(r[0], prob.ref_int); }, [](std::size_t) { return 0.0L; });
        v.bound = prob.kind == ReduceKind::Max ? "exact (int32 maximum)"
                                               : "exact modulo 2^32 (int32, wrap-around arithmetic)";
      } else {
        const long double bound = reduce_bound(prob, info(prob.prec).u, ref_u<T>());
        v = check_each(1, [&](std::size_t) { return sum_element(r[0], static_cast<sum_ref_t<T>>(prob.ref)); },
                       [&](std::size_t) { return bound; });
        v.bound = reduce_bound_text(prob.kind);
      }
      return v;
    });
  }
};

OpRegistrar<ReduceOp> registered_reduce;

}  // namespace
}  // namespace hetbench
