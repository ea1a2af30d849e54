// MRIQ: the Q matrix of non-Cartesian MRI reconstruction, Parboil's mri-q (Stone et al.,
// "Accelerating advanced MRI reconstructions on GPUs", JPDC 68(10), 2008; Stratton et al.,
// "Parboil: a revised benchmark suite"), a benchmark of Majeti et al.'s layout study.
// Kernel 1 (ComputePhiMag): phiMag_k = phiR_k^2 + phiI_k^2 per k-space sample; kernel 2
// (ComputeQ): per voxel i,
//   Qr_i = sum_k phiMag_k cos(2 pi (kx_k x_i + ky_k y_i + kz_k z_i)),  Qi_i = the same with sin.
// Records: the k-space samples (`kspace`: kx ky kz phiR phiI phiMag, nk of them, Parboil's
// kValues plus the phi it is made of), the voxels (`vox`: x y z) and Q (`q`: qr qi), each
// placed by the point's layout (N[xK]@LAYOUT, ops/layout_op.hpp); a Scratchpad entry stages
// k-space fields in local-memory tiles, as Parboil stages kValues in constant memory.
#include <numbers>

#include "ops/layout_op.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

constexpr int kKScale = 4;  // k-space coordinates in +-[1, 16]: arguments up to 2 pi 48, some 48 turns
// Validating N x K pairs costs a reference sin and cos each: above this many, a seeded
// sample of kSample voxels is checked (the record's note says so).
constexpr double kFullCheck = 1u << 26;
constexpr std::size_t kSample = 4096;

const FieldSet& mriq_fields() {
  static const FieldSet fs{{"kspace", {"kx", "ky", "kz", "phiR", "phiI", "phiMag"}, false, "nk"},
                           {"vox", {"x", "y", "z"}, false, "n"},
                           {"q", {"qr", "qi"}, false, "n"}};
  return fs;
}

std::vector<Sizes> mriq_dims(const std::string& list) {
  std::vector<Sizes> out;
  for (const auto& d : parse_extents(list, 2, "mriq", "N (voxels and samples) or NxK (N voxels, K k-space samples)"))
    out.push_back(Sizes{{"n", d[0]}, {"nk", d[1]}});
  return out;
}

class MriqProblem final : public LayoutProblem {
 public:
  std::map<std::string, Bytes> in;  // the seeded fields, one array each
  std::vector<std::size_t> checked;  // the voxels validated (all, or a sample)
};

// The bound of one component of Q at one voxel in one precision (docs/validation.md,
// MRI-Q): per term, phiMag's gamma_2 and the product's rounding (gamma_3 on |t|), the
// argument's error gamma_6 * 2 pi * sum_c |k_c x_c| and the library's 4 ulp (8u) on cos or
// sin; then K terms summed in any order: gamma_{K-1} on the sum of |computed terms|.
long double q_bound(long double sum_phi_trig, long double sum_phi_err, double nk, double u) {
  const long double g3 = gamma_n(3, u), gk = gamma_n(nk > 1 ? nk - 1 : 0, u);
  const long double terms = g3 * sum_phi_trig + (1 + g3) * sum_phi_err;
  return terms * (1 + gk) + gk * sum_phi_trig;
}

class MriqOp final : public Op {
 public:
  std::string name() const override { return "mriq"; }
  // Hundreds of flops a byte: rated by its arithmetic, as GEMM is.
  OpRates rates() const override { return {.by_flops = true, .shows_flops = true}; }
  std::string description() const override {
    return "Parboil's MRI-Q: phiMag, then Q = sum over k-space samples of phiMag cos/sin(2 pi k.x); layouts (SIZE@LAYOUT)";
  }
  const OpSignature& signature() const override {
    static const OpSignature sig{{{"kspace", true, Elem::Real, Access::InOut},
                                  {"vox"},
                                  {"q", true, Elem::Real, Access::Out},
                                  {"n", false, Elem::Int},
                                  {"nk", false, Elem::Int}},
                                 {Axis::dimension("n", "voxels"), Axis::dimension("nk", "k-space samples")}};
    return sig;
  }
  std::vector<Sizes> parse_sizes(const std::string& spec) const override {
    return parse_layout_sizes("mriq", mriq_fields(), spec, mriq_dims, "kspace");  // the kernel tiles the samples
  }
  double device_bytes(const Sizes& s, Precision p) const override {
    return (12 * (static_cast<double>(s.at("nk")) + 64) + 5 * (static_cast<double>(s.at("n")) + 64)) * info(p).bytes;
  }
  std::string device_fit(const Sizes& s, Precision p, const DeviceInfo& di) const override {
    return scratch_fit(layout_of("mriq", mriq_fields(), s), p, di);
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem<MriqProblem>(s, p);
    const auto n = static_cast<std::size_t>(s.at("n")), nk = static_cast<std::size_t>(s.at("nk"));
    prob->layout = layout_of("mriq", mriq_fields(), s);
    with_real(p, [&]<class T>() {
      auto in = place_fields<T>(*prob, mriq_fields(), {nk, n, n}, {Access::InOut, Access::In, Access::Out}, seed,
                                {"kx", "ky", "kz", "phiR", "phiI", "x", "y", "z"}, {},
                                {{"kx", kKScale}, {"ky", kKScale}, {"kz", kKScale}});
      for (auto& [f, v] : in) {
        const auto* b = reinterpret_cast<const unsigned char*>(v.data());
        prob->in[f].assign(b, b + v.size() * sizeof(T));
      }
      return 0;
    });
    const double pairs = static_cast<double>(n) * static_cast<double>(nk);
    prob->checked = sample_indices(n, pairs <= kFullCheck ? n : kSample, seed, 99);
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->scalars.push_back({"nk", true, static_cast<double>(nk)});
    // per pair: k.x (3 multiplies, 2 adds), times 2 pi, 2 multiply-adds; sin and cos
    // uncounted; per sample 3 for phiMag
    prob->flops = 10.0 * pairs + 3.0 * static_cast<double>(nk);
    prob->min_bytes = (6.0 * static_cast<double>(nk) + 5.0 * static_cast<double>(n)) * info(p).bytes;
    prob->features["pairs"] = pairs;
    return prob;
  }
  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const MriqProblem&>(base);
    return with_real(prob.prec, [&]<class T>() {
      using R = ref_t<T>;
      const auto n = static_cast<std::size_t>(prob.sizes.at("n")), nk = static_cast<std::size_t>(prob.sizes.at("nk"));
      const auto q = gather_fields<T>(prob.layout.operand("q"), {"qr", "qi"}, n, output(out, "q"));
      const auto& qr = q[0];
      const auto& qi = q[1];
      const auto phimag = gather_fields<T>(prob.layout.operand("kspace"), {"phiMag"}, nk, output(out, "kspace"))[0];
      auto in = [&](const char* f) { return typed<T>(prob.in.at(f)); };
      const T *kx = in("kx"), *ky = in("ky"), *kz = in("kz"), *pr = in("phiR"), *pi = in("phiI");
      const T *x = in("x"), *y = in("y"), *z = in("z");
      const double u = info(prob.prec).u, ur = ref_u<T>();
      const R two_pi = R(2 * std::numbers::pi_v<long double>);
      const std::size_t nc = prob.checked.size();
      std::vector<long double> ref(2 * nc), bound(2 * nc);
      std::vector<R> phi(nk);
      for (std::size_t k = 0; k < nk; ++k) phi[k] = R(pr[k]) * R(pr[k]) + R(pi[k]) * R(pi[k]);
#pragma omp parallel for schedule(dynamic, 16) if (nc * nk > 65536)
      for (std::size_t c = 0; c < nc; ++c) {
        const std::size_t i = prob.checked[c];
        R sr = 0, si = 0, ar = 0, ai = 0, earg = 0, sphi = 0;  // sums, magnitudes, phi * 2 pi sum|k_c x_c|, sum phi
        for (std::size_t k = 0; k < nk; ++k) {
          const R kxx = R(kx[k]) * R(x[i]), kyy = R(ky[k]) * R(y[i]), kzz = R(kz[k]) * R(z[i]);
          const R arg = two_pi * (kxx + kyy + kzz);
          const R cs = std::cos(arg), sn = std::sin(arg);
          sr += phi[k] * cs;
          si += phi[k] * sn;
          ar += phi[k] * std::fabs(cs);
          ai += phi[k] * std::fabs(sn);
          earg += phi[k] * two_pi * (std::fabs(kxx) + std::fabs(kyy) + std::fabs(kzz));
          sphi += phi[k];
        }
        // Per term |cos^ - cos| <= gamma_6 * 2 pi sum|k_c x_c| + 8u; the magnitudes take the
        // reference's own error on top (|c| + E), so the bound holds for the exact sums.
        const long double ek = gamma_n(6, u) * static_cast<long double>(earg) + 8 * u * static_cast<long double>(sphi);
        const long double er = gamma_n(6, ur) * static_cast<long double>(earg) + 8 * ur * static_cast<long double>(sphi);
        for (int comp = 0; comp < 2; ++comp) {
          const long double mag = static_cast<long double>(comp ? ai : ar) + ek + er;
          ref[2 * c + comp] = static_cast<long double>(comp ? si : sr);
          bound[2 * c + comp] = q_bound(mag, ek, static_cast<double>(nk), u) + q_bound(mag, er, static_cast<double>(nk), ur);
        }
      }
      const long double gphi = gamma_n(2, u) + gamma_n(2, ur);
      auto v = check_each(
          2 * nc + nk,
          [&](std::size_t e) {
            const T o = e < 2 * nc ? (e % 2 ? qi : qr)[prob.checked[e / 2]] : phimag[e - 2 * nc];
            if (is_poison(o)) return ElementError{ElementError::unwritten};
            if (std::isnan(o)) return ElementError{ElementError::nan};
            const long double r = e < 2 * nc ? ref[e] : static_cast<long double>(phi[e - 2 * nc]);
            return ElementError{ElementError::ok, std::fabs(static_cast<long double>(o) - r), r};
          },
          [&](std::size_t e) { return e < 2 * nc ? bound[e] : gphi * static_cast<long double>(phi[e - 2 * nc]); });
      v.bound = "per voxel and component: gamma_{K-1} and gamma_3 on sum_k phiMag_k |cos| (|sin|), plus sum_k phiMag_k "
                "(gamma_6 * 2 pi sum_c |k_c x_c| + 8u) for the argument and cos/sin; phiMag: gamma_2 (docs/validation.md)";
      if (nc < n) v.note = fmt::format("checked a seeded sample of {} of {} voxels (N x K > 2^26)", nc, n);
      return v;
    });
  }
};

OpRegistrar<MriqOp> registered_mriq;

}  // namespace
}  // namespace hetbench
