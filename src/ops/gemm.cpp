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
#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "core/ranges.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

constexpr double kFullLimit = 134217728.0;  // 2^27 multiply-adds
constexpr std::size_t kSample = 64;

struct GemmProblem final : Problem {
  std::vector<std::size_t> rows, cols;  // the validated rows and columns (all when not sampled)
  bool sampled = false;
  std::vector<long double> ref, mag;    // per validated element: reference and |α||A||B| + |β||c|
};

std::string malformed(const std::string& token) {
  return fmt::format("malformed GEMM size '{}': expected N, MxNxK or a range, optionally @NN|NT|TN|TT", token);
}

// `count` distinct indices of [0, n), sorted, always with 0 and n−1; all when n ≤ count.
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed, std::uint64_t stream) {
  std::set<std::size_t> s;
  if (n <= count) {
    for (std::size_t i = 0; i < n; ++i) s.insert(i);
  } else {
    s.insert(0);
    s.insert(n - 1);
    for (std::uint64_t i = 0; s.size() < count; ++i) s.insert(splitmix64(seed ^ splitmix64(stream * 0x9E37ull + i)) % n);
  }
  return {s.begin(), s.end()};
}

class GemmOp final : public Op {
 public:
  std::string name() const override { return "gemm"; }
  std::string description() const override { return "C = alpha*op(A)*op(B) + beta*C (row-major; layouts NN, NT, TN, TT)"; }
  std::vector<std::string> size_names() const override { return {"m", "n", "k", "ta", "tb"}; }

  // DIMS[@LAYOUT]; DIMS is a comma list of orders, ranges of orders or MxNxK triples.
  std::vector<Sizes> parse_sizes(const std::string& token) const override {
    std::string dims = token;
    long long ta = 0, tb = 0;
    if (auto at = token.find('@'); at != std::string::npos) {
      std::string lay = token.substr(at + 1);
      dims = token.substr(0, at);
      for (auto& c : lay) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (lay.size() != 2 || (lay[0] != 'N' && lay[0] != 'T') || (lay[1] != 'N' && lay[1] != 'T'))
        throw Error(malformed(token));
      ta = lay[0] == 'T';
      tb = lay[1] == 'T';
    }
    if (dims.empty()) throw Error(malformed(token));
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
      out.push_back(Sizes{{"m", v[0]}, {"n", v[1]}, {"k", v[2]}, {"ta", ta}, {"tb", tb}});
    }
    return out;
  }

  std::size_t device_bytes(const Sizes& s, Precision p) const override {
    const auto m = static_cast<std::size_t>(s.at("m")), n = static_cast<std::size_t>(s.at("n")),
               k = static_cast<std::size_t>(s.at("k"));
    return (m * k + k * n + 2 * m * n) * info(p).bytes;  // C twice: the runner keeps a pristine copy
  }

  std::unique_ptr<Problem> make_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = std::make_unique<GemmProblem>();
    prob->prec = p;
    prob->sizes = s;
    const auto m = static_cast<std::size_t>(s.at("m")), n = static_cast<std::size_t>(s.at("n")),
               k = static_cast<std::size_t>(s.at("k"));
    const bool ta = s.at("ta") != 0, tb = s.at("tb") != 0;
    with_real(p, [&]<class T>() {
      prob->arrays.push_back(random_array<T>("A", m * k, seed, 1));
      prob->arrays.push_back(random_array<T>("B", k * n, seed, 2));
      prob->arrays.push_back(random_array<T>("C", m * n, seed, 3));
      prob->arrays.back().access = Access::InOut;
      // Exactly representable in T (every variant multiplies by the same value), and
      // neither 0 nor 1, so that a variant that drops α or β cannot pass.
      auto scalar = [&](std::uint64_t stream) {
        T v = static_cast<T>(random_value(seed, stream, 0));
        if (v == T(1) || v == T(-1)) v *= T(0.75);
        return v;
      };
      const T alpha = scalar(4), beta = scalar(5);
      prob->scalars.push_back({"alpha", false, static_cast<double>(alpha)});
      prob->scalars.push_back({"beta", false, static_cast<double>(beta)});
      compute_reference<T>(*prob, m, n, k, ta, tb, alpha, beta, seed);
      return 0;
    });
    prob->scalars.push_back({"m", true, static_cast<double>(m)});
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->scalars.push_back({"k", true, static_cast<double>(k)});
    prob->flops = 2.0 * m * n * k;
    prob->min_bytes = static_cast<double>(info(p).bytes) * (m * k + k * n + 2.0 * m * n);
    prob->features["layout"] = std::string(ta ? "T" : "N") + (tb ? "T" : "N");
    return prob;
  }

  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const GemmProblem&>(base);
    return with_real(prob.prec, [&]<class T>() {
      const auto n = static_cast<std::size_t>(prob.sizes.at("n"));
      const double k = static_cast<double>(prob.sizes.at("k"));
      const long double g = gamma_n(k + 2, info(prob.prec).u) + gamma_n(k + 2, ref_u<T>());
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
      v.bound = "|C_ij - ref_ij| <= (gamma_{k+2} + gamma_{k+2}(u_ref)) (|alpha| (|A||B|)_ij + |beta| |C0_ij|)";
      if (prob.sampled)
        v.note = fmt::format("sampled {} of {} elements ({} rows x {} columns)", got.size(),
                             static_cast<std::size_t>(prob.sizes.at("m")) * n, prob.rows.size(), nc);
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
    const T* C = typed<T>(prob.array("C").host);
    prob.sampled = static_cast<double>(m) * n * k > kFullLimit;
    if (prob.sampled) {
      prob.rows = sample_indices(m, kSample, seed, 6);
      prob.cols = sample_indices(n, kSample, seed, 7);
    } else {
      prob.rows.resize(m);
      prob.cols.resize(n);
      for (std::size_t i = 0; i < m; ++i) prob.rows[i] = i;
      for (std::size_t j = 0; j < n; ++j) prob.cols[j] = j;
    }
    const std::size_t nr = prob.rows.size(), nc = prob.cols.size();
    prob.ref.assign(nr * nc, 0);
    prob.mag.assign(nr * nc, 0);
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
          const R c0 = C[i * n + prob.cols[q]];
          prob.ref[r * nc + q] = static_cast<long double>(a * sum[q] + b * c0);
          prob.mag[r * nc + q] = static_cast<long double>(aa * abs[q] + ab * (c0 < 0 ? -c0 : c0));
        }
      }
    }
  }
};

OpRegistrar<GemmOp> reg;

}  // namespace
}  // namespace hetbench
