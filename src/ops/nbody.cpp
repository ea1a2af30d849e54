// NBODY: all-pairs gravitational accelerations with Plummer softening, the first
// benchmark of Majeti et al.'s layout study. Records are bodies (fields x, y, z, m) and
// accelerations (ax, ay, az), each placed by the point's layout (N@LAYOUT; ops/layout_op.hpp):
//   a_i = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps^2)^(3/2)
// 20 flops per interaction (Nyland, Harris and Prins, "Fast N-body simulation with CUDA").
#include "ops/layout_op.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

// Softening eps^2 = 1/64: exact in every precision, so every variant adds the same value.
constexpr double kEps2 = 1.0 / 64;
// Rounding errors of one interaction term (docs/validation.md, nbody): 26 units.
constexpr double kTermUnits = 26;
// The reference costs n interactions per checked body in a wider type on the host: above
// n^2 = 2^30 (n > 32,768; some seconds on a 16-core host per point) a seeded sample of
// kNbodySample bodies is checked, each against all n (the record's note says so).
constexpr double kNbodyFullCheck = 1u << 30;
constexpr std::size_t kNbodySample = 4096;

const FieldSet& nbody_fields() {
  static const FieldSet fs{{"body", {"x", "y", "z", "m"}, false}, {"acc", {"ax", "ay", "az"}, false}};
  return fs;
}

std::vector<Sizes> nbody_dims(const std::string& list) {
  std::vector<Sizes> out;
  for (long long n : parse_int_list(list, "size")) {
    if (n < 1) throw Error(fmt::format("size n = {} is impossible: nbody needs n >= 1", n));
    out.push_back(Sizes{{"n", n}});
  }
  return out;
}

class NbodyProblem final : public LayoutProblem {
 public:
  std::vector<Bytes> body;  // x, y, z, m as arrays of n words
  std::vector<std::size_t> checked;  // the bodies validated (all, or a sample)
};

class NbodyOp final : public Op {
 public:
  std::string name() const override { return "nbody"; }
  // Hundreds of flops a byte: rated by its arithmetic, as GEMM is.
  OpRates rates() const override { return {.by_flops = true, .shows_flops = true}; }
  std::string description() const override {
    return "all-pairs N-body accelerations with softening; records placed by a layout file (SIZE@LAYOUT)";
  }
  const OpSignature& signature() const override {
    static const OpSignature sig{{{"body"},
                                  {"acc", true, Elem::Real, Access::Out},
                                  {"eps2", false},
                                  {"n", false, Elem::Int}},
                                 {Axis::dimension("n", "bodies")}};
    return sig;
  }
  std::vector<Sizes> parse_sizes(const std::string& spec) const override {
    return parse_layout_sizes("nbody", nbody_fields(), spec, nbody_dims);
  }
  double device_bytes(const Sizes& s, Precision p) const override {
    return (static_cast<double>(s.at("n")) + 64) * 7 * info(p).bytes;
  }
  std::string device_fit(const Sizes& s, Precision p, const DeviceInfo& di) const override {
    return scratch_fit(layout_of("nbody", nbody_fields(), s), p, di);
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem<NbodyProblem>(s, p);
    const auto n = static_cast<std::size_t>(s.at("n"));
    prob->layout = layout_of("nbody", nbody_fields(), s);
    with_real(p, [&]<class T>() {
      prob->body = place_records<T>(*prob, nbody_fields(), n, seed, {"m"});  // masses are positive
      return 0;
    });
    const bool full = static_cast<double>(n) * static_cast<double>(n) <= kNbodyFullCheck;
    prob->checked = sample_indices(n, full ? n : kNbodySample, seed, 98);
    prob->scalars.push_back({"eps2", false, kEps2});
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->flops = 20.0 * static_cast<double>(n) * static_cast<double>(n);
    prob->min_bytes = 7.0 * static_cast<double>(n) * info(p).bytes;
    prob->features["interactions"] = static_cast<double>(n) * static_cast<double>(n);
    return prob;
  }
  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const NbodyProblem&>(base);
    return with_real(prob.prec, [&]<class T>() {
      using R = ref_t<T>;
      const auto n = static_cast<std::size_t>(prob.sizes.at("n"));
      const auto& ol = prob.layout.operand("acc");
      std::vector<std::vector<T>> got(3, std::vector<T>(n));
      const char* names[3] = {"ax", "ay", "az"};
      for (int c = 0; c < 3; ++c)
        gather_field(ol, names[c], n, sizeof(T), output(out, "acc").data(), reinterpret_cast<unsigned char*>(got[c].data()));
      const T* p[4];
      for (int f = 0; f < 4; ++f) p[f] = typed<T>(prob.body[f]);
      // Reference and bound per checked body: sum of the terms in R, and gamma_{n+26} * sum |term|.
      const std::size_t nc = prob.checked.size();
      std::vector<R> ref(3 * nc), mag(3 * nc);
#pragma omp parallel for if (nc > 256)
      for (std::size_t c = 0; c < nc; ++c) {
        const std::size_t i = prob.checked[c];
        R a[3] = {0, 0, 0}, s[3] = {0, 0, 0};
        for (std::size_t j = 0; j < n; ++j) {
          const R d[3] = {R(p[0][j]) - R(p[0][i]), R(p[1][j]) - R(p[1][i]), R(p[2][j]) - R(p[2][i])};
          const R r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + R(kEps2);
          const R w = R(p[3][j]) / (r2 * std::sqrt(r2));
          for (int k = 0; k < 3; ++k) {
            a[k] += w * d[k];
            s[k] += std::fabs(w * d[k]);
          }
        }
        for (int k = 0; k < 3; ++k) {
          ref[3 * c + k] = a[k];
          mag[3 * c + k] = s[k];
        }
      }
      const double u = info(prob.prec).u;
      const long double g = gamma_n(static_cast<double>(n) + kTermUnits, u) + gamma_n(static_cast<double>(n) + kTermUnits, ref_u<T>());
      // Every output is looked at for poison and NaN; the checked bodies against the bound.
      std::vector<std::ptrdiff_t> slot(n, -1);
      for (std::size_t c = 0; c < nc; ++c) slot[prob.checked[c]] = static_cast<std::ptrdiff_t>(c);
      auto v = check_each(
          3 * n,
          [&](std::size_t k) {
            const T o = got[k % 3][k / 3];
            if (is_poison(o)) return ElementError{ElementError::unwritten};
            if (std::isnan(o)) return ElementError{ElementError::nan};
            const std::ptrdiff_t c = slot[k / 3];
            if (c < 0) return ElementError{ElementError::ok, 0.0L, 0.0L};
            const long double r = ref[3 * c + k % 3];
            return ElementError{ElementError::ok, std::fabs(static_cast<long double>(o) - r), r};
          },
          [&](std::size_t k) {
            const std::ptrdiff_t c = slot[k / 3];
            return c < 0 ? 0.0L : g * static_cast<long double>(mag[3 * c + k % 3]);
          });
      v.checked = 3 * nc;
      v.bound = "gamma_{n+26} * sum_j |m_j d_ij / (r_ij^2 + eps^2)^(3/2)| per component (26: one term's roundings, rsqrt 2 ulp)";
      if (nc < n) v.note = fmt::format("checked a seeded sample of {} of {} bodies (n^2 > 2^30)", nc, n);
      return v;
    });
  }
};

OpRegistrar<NbodyOp> registered_nbody;

}  // namespace
}  // namespace hetbench
