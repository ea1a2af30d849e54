// SCAN: prefix sums. Inclusive y_i = Σ_{j≤i} x_j; exclusive y_i = Σ_{j<i} x_j (y_0 = 0).
// The kind is the size-token suffix @inclusive (default) or @exclusive ("2^20@exclusive",
// Op::parse_sizes; size key "exclusive", 0 or 1, for metadata defines). A transformed
// input, CUB's second study (a prefix sum of squares through a TransformInputIterator),
// is the suffix @square: the terms are x_j² instead of x_j (optional size key "square",
// the kernels' SQUARE define; absent in records of plain scans).
// Bound (S, D): y_i is a sum of m terms (m = i + 1 inclusive, i exclusive), formed by
// m − 1 additions in whatever order the variant chose (sequential, blocked, a tree, a
// look-back chain); each term carries at most m − 1 roundings, so
//   |ŷ_i − y_i| ≤ γ_{m−1}·Σ_{j<m}|x_j|                       (Higham, ASNA ch. 4)
// and the reference (double for S, long double for D) adds its own γ_{m−1}(u_ref)
// times the same sum. With @square each term is first rounded once more (fl(x_j²)), so
// γ_m·Σx_j² (and γ_m(u_ref) for the reference's own squares). I32: exact modulo 2^32
// (the kernels add and multiply as unsigned).
#include "ops/prefix_common.hpp"

namespace hetbench {

namespace {

const Axis& scan_kind_axis() {
  static const Axis a = Axis::choice("kind", {"inclusive", "exclusive"}, "inclusive or exclusive prefix sum",
                                     /*indicators=*/true);
  return a;
}

const Axis& scan_input_axis() {
  static const Axis a = Axis::choice("input", {"x", "square"}, "the terms: x_j, or x_j^2 (a transformed input)",
                                     /*indicators=*/true, /*optional=*/true);
  return a;
}

bool squares(const Sizes& s) { return scan_input_axis().index(s) == 1; }

class ScanOp final : public Op {
 public:
  std::string name() const override { return "scan"; }
  std::string description() const override {
    return "prefix sums y_i = sum_{j<=i} x_j (@inclusive) or sum_{j<i} x_j (@exclusive), of x_j^2 with @square";
  }
  std::vector<Precision> precisions() const override { return {Precision::S, Precision::D, Precision::I32}; }
  const OpSignature& signature() const override {
    static const OpSignature sig = [] {
      auto s = vector_signature({{"x"}, {"y", true, Elem::Real, Access::Out}}, {}, false);
      s.axes.push_back(scan_kind_axis());
      s.axes.push_back(scan_input_axis());
      return s;
    }();
    return sig;
  }
  double device_bytes(const Sizes& s, Precision p) const override { return vector_bytes(s, p, 2); }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    const auto n = static_cast<std::size_t>(s.at("n"));
    with_sum_type(p, [&]<class T>() {
      prob->arrays.push_back(sum_input<T>(n, seed));
      prob->arrays.push_back(output_array("y", n, sizeof(T)));
      return 0;
    });
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->flops = (squares(s) ? 2.0 : 1.0) * n;  // a square and an addition per term
    prob->min_bytes = 2.0 * n * info(p).bytes;
    prob->features["kind"] = scan_kind_axis().value(s);
    if (squares(s)) prob->features["input"] = "square";
    return prob;
  }
  Validation validate(const Problem& prob, const Outputs& out) const override {
    const bool excl = scan_kind_axis().index(prob.sizes) == 1, sq = squares(prob.sizes);
    return with_sum_type(prob.prec, [&]<class T>() {
      using R = sum_ref_t<T>;
      const T* x = typed<T>(prob.arrays[0].host);
      const T* y = typed<T>(output(out, "y"));
      const auto n = static_cast<std::size_t>(prob.sizes.at("n"));
      // The term j in R (uint32 for I32: its square wraps as the kernels' does).
      auto term = [sq](R v) { return sq ? v * v : v; };
      // Chunk sums, then their prefix: each chunk is then checked on its own.
      std::vector<R> sum, abs;
      chunk_sums(x, n, sum, abs, term);
      R run = 0, run_abs = 0;
      for (std::size_t c = 0; c < sum.size(); ++c) {
        const R s = sum[c], a = abs[c];
        sum[c] = run;
        abs[c] = run_abs;
        run += s;
        run_abs += a;
      }
      const double u = info(prob.prec).u, ur = sum_ref_u<T>();
      std::vector<Validation> part(sum.size());
#pragma omp parallel for schedule(dynamic) if (sum.size() > 1)
      for (std::size_t c = 0; c < sum.size(); ++c) {
        const std::size_t b = c * kSumChunk, len = std::min(n, b + kSumChunk) - b;
        std::vector<R> ref(len);
        std::vector<long double> bound(len);
        R s = sum[c], a = abs[c];
        for (std::size_t k = 0; k < len; ++k) {
          const std::size_t i = b + k;
          const R t = term(static_cast<R>(x[i]));
          if (!excl) {
            s += t;
            a += abs_of(t);
          }
          // m − 1 roundings of the additions, one more per term for its square.
          const double terms = excl ? double(i) : double(i) + 1;
          const double roundings = std::max(0.0, terms - 1) + (sq && terms > 0 ? 1 : 0);
          ref[k] = s;
          bound[k] = (gamma_n(roundings, u) + gamma_n(roundings, ur)) * static_cast<long double>(a);
          if (excl) {
            s += t;
            a += abs_of(t);
          }
        }
        part[c] = check_each(
            len, [&](std::size_t k) { return sum_element(y[b + k], ref[k]); },
            [&](std::size_t k) { return bound[k]; });
      }
      Validation v = merge_validations(part);
      if constexpr (std::is_integral_v<T>) v.bound = "exact modulo 2^32 (int32, wrap-around arithmetic)";
      else
        v.bound = sq ? "|y_i - ref_i| <= (gamma_m + gamma_m(u_ref)) sum_{j<m} x_j^2, m terms"
                     : "|y_i - ref_i| <= (gamma_{m-1} + gamma_{m-1}(u_ref)) sum_{j<m}|x_j|, m terms";
      return v;
    });
  }
};

OpRegistrar<ScanOp> registered_scan;

}  // namespace
}  // namespace hetbench
