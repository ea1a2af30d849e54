// SRAD: one iteration of speckle-reducing anisotropic diffusion (Yu and Acton, "Speckle
// reducing anisotropic diffusion", IEEE TIP 11(11), 2002) in the formulation of Rodinia's
// srad_v1/srad_v2 (Che et al., "Rodinia: a benchmark suite for heterogeneous computing"),
// a benchmark of Majeti et al.'s layout study. An nx x ny image (x contiguous) of records
// with fields J (the image, updated in place) and dN, dS, dW, dE, c (the directional
// derivatives and the diffusion coefficient kernel 1 writes and kernel 2 reads), all one
// operand `img` placed by the point's layout (NX[xNY]@LAYOUT, ops/layout_op.hpp):
//   kernel 1: d* = J(neighbour) - J, G2 = sum d*^2 / J^2, L = sum d* / J,
//             q^2 = (G2/2 - L^2/16) / (1 + L/4)^2, c = 1 / (1 + (q^2 - q0^2) / (q0^2 (1 + q0^2))), clamped to [0, 1]
//   kernel 2: D = c dN + c(S) dS + c dW + c(E) dE, J += lambda/4 D
// Neighbours are clamped at the borders, as Rodinia's iN/iS/jW/jE index arrays are. q0^2 is
// the variance over the squared mean of the region of interest (the top-left 128 x 128
// pixels, Rodinia's r1..r2, c1..c2), computed on the host from the input image as srad_v2
// does every iteration; lambda = 1/2.
#include <limits>

#include "ops/layout_op.hpp"
#include "ops/running_error.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

constexpr double kLambda = 0.5;
constexpr std::size_t kRoi = 128;
constexpr std::size_t kFields = 6;  // J, dN, dS, dW, dE, c: the order of checked outputs

const FieldSet& srad_fields() {
  static const FieldSet fs{{"img", {"J", "dN", "dS", "dW", "dE", "c"}, false}};
  return fs;
}

std::vector<Sizes> srad_dims(const std::string& list) {
  std::vector<Sizes> out;
  for (const auto& d : parse_extents(list, 2, "srad", "NX or NXxNY")) {
    if (d[2] < 2)
      throw Error(fmt::format("size {}x{} is impossible: srad needs at least 2 pixels (q0^2, the variance of the "
                              "region of interest over its squared mean, must be positive)",
                              d[0], d[1]));
    out.push_back(Sizes{{"nx", d[0]}, {"ny", d[1]}, {"n", d[2]}});
  }
  return out;
}

class SradProblem final : public LayoutProblem {
 public:
  Bytes image;  // J as n words of the precision
};

// The kernels' arithmetic in running-error form (ops/running_error.hpp), step by step in
// the order srad.k and the host variant evaluate it: the six outputs of pixel k.
template <class T>
struct SradRef {
  using R = ref_t<T>;
  using V = Running<R>;
  RunningArith<R> a;
  const T* J;
  std::size_t nx, ny;
  V q0, lam;

  struct Coef {
    V d[4], c;  // dN, dS, dW, dE
  };
  Coef coef(std::size_t k) const {
    const std::size_t x = k % nx, y = k / nx;
    const V jc = a.exact(R(J[k]));
    const std::size_t nb[4] = {y > 0 ? k - nx : k, y + 1 < ny ? k + nx : k, x > 0 ? k - 1 : k, x + 1 < nx ? k + 1 : k};
    Coef o;
    for (int i = 0; i < 4; ++i) o.d[i] = a.sub(a.exact(R(J[nb[i]])), jc);
    V g2 = a.mul(o.d[0], o.d[0]), l = o.d[0];
    for (int i = 1; i < 4; ++i) {
      g2 = a.add(g2, a.mul(o.d[i], o.d[i]));
      l = a.add(l, o.d[i]);
    }
    g2 = a.div(g2, a.mul(jc, jc));
    l = a.div(l, jc);
    const V num = a.sub(a.mul(a.exact(0.5), g2), a.mul(a.exact(0.0625), a.mul(l, l)));
    const V den = a.add(a.exact(1), a.mul(a.exact(0.25), l));
    const V qsqr = a.div(num, a.mul(den, den));
    const V d2 = a.div(a.sub(qsqr, q0), a.mul(q0, a.add(a.exact(1), q0)));
    o.c = a.clamp01(a.div(a.exact(1), a.add(a.exact(1), d2)));
    return o;
  }
  void pixel(std::size_t k, V out[kFields]) const {
    const std::size_t x = k % nx, y = k / nx;
    const Coef here = coef(k);
    const V cs = y + 1 < ny ? coef(k + nx).c : here.c, ce = x + 1 < nx ? coef(k + 1).c : here.c;
    const V c4[4] = {here.c, cs, here.c, ce};
    V dsum = a.mul(c4[0], here.d[0]);
    for (int i = 1; i < 4; ++i) dsum = a.add(dsum, a.mul(c4[i], here.d[i]));
    out[0] = a.add(a.exact(R(J[k])), a.mul(a.mul(a.exact(0.25), lam), dsum));
    for (int i = 0; i < 4; ++i) out[1 + i] = here.d[i];
    out[5] = here.c;
  }
};

class SradOp final : public Op {
 public:
  std::string name() const override { return "srad"; }
  std::string description() const override {
    return "one SRAD iteration (Rodinia): diffusion coefficient, then update; records placed by a layout (SIZE@LAYOUT)";
  }
  const OpSignature& signature() const override {
    static const OpSignature sig{{{"img", true, Elem::Real, Access::InOut},
                                  {"q0sqr", false},
                                  {"lambda", false},
                                  {"nx", false, Elem::Int},
                                  {"ny", false, Elem::Int},
                                  {"n", false, Elem::Int}},
                                 {Axis::dimension("nx", "pixels along x (contiguous)"), Axis::dimension("ny", "pixels along y"),
                                  Axis::dimension("n", "pixels, nx*ny")}};
    return sig;
  }
  std::vector<Sizes> parse_sizes(const std::string& spec) const override {
    return parse_layout_sizes("srad", srad_fields(), spec, srad_dims, "");  // the kernels tile nothing
  }
  double device_bytes(const Sizes& s, Precision p) const override {
    return (static_cast<double>(s.at("n")) + 1024) * kFields * 2 * info(p).bytes;  // the buffer and its pristine copy
  }
  std::string device_fit(const Sizes& s, Precision p, const DeviceInfo& di) const override {
    return scratch_fit(layout_of("srad", srad_fields(), s), p, di);
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem<SradProblem>(s, p);
    const auto n = static_cast<std::size_t>(s.at("n")), nx = static_cast<std::size_t>(s.at("nx"));
    prob->layout = layout_of("srad", srad_fields(), s);
    double q0 = 0;
    with_real(p, [&]<class T>() {
      // J > 0 (Rodinia's exp of the image): uniform in [1/16, 1]. The other fields start as poison.
      auto in = place_fields<T>(*prob, srad_fields(), {n}, {Access::InOut}, seed, {"J"}, {"J"});
      const auto* bytes = reinterpret_cast<const unsigned char*>(in["J"].data());
      prob->image.assign(bytes, bytes + n * sizeof(T));
      long double sum = 0, sum2 = 0;
      std::size_t cnt = 0;
      for (std::size_t y = 0; y < std::min(kRoi, n / nx); ++y)
        for (std::size_t x = 0; x < std::min(kRoi, nx); ++x, ++cnt) {
          sum += in["J"][y * nx + x];
          sum2 += static_cast<long double>(in["J"][y * nx + x]) * in["J"][y * nx + x];
        }
      const long double mean = sum / cnt, var = sum2 / cnt - mean * mean;
      q0 = static_cast<double>(static_cast<T>(var / (mean * mean)));  // a kernel input: exact in T
      return 0;
    });
    if (!(q0 > 0))
      throw Error(fmt::format("srad {}x{}: the region of interest has no variance (q0^2 = 0): use more pixels", s.at("nx"),
                              s.at("ny")));
    prob->scalars.push_back({"q0sqr", false, q0});
    prob->scalars.push_back({"lambda", false, kLambda});
    for (const char* k : {"nx", "ny", "n"}) prob->scalars.push_back({k, true, static_cast<double>(s.at(k))});
    prob->flops = 41.0 * static_cast<double>(n);  // kernel 1: 31 (6 divisions), kernel 2: 10
    // J read twice and written once, the five derived fields written once and read once
    prob->min_bytes = 13.0 * static_cast<double>(n) * info(p).bytes;
    return prob;
  }
  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const SradProblem&>(base);
    return with_real(prob.prec, [&]<class T>() {
      using R = ref_t<T>;
      const auto nx = static_cast<std::size_t>(prob.sizes.at("nx")), ny = static_cast<std::size_t>(prob.sizes.at("ny"));
      const std::size_t n = nx * ny;
      const auto got = gather_fields<T>(prob.layout.operand("img"), srad_fields()[0].fields, n, output(out, "img"));
      const double u = info(prob.prec).u;
      // Division: correctly rounded in D everywhere; OpenCL allows 2.5 ulp (<= 5u) in S.
      const RunningArith<R> arith{R(u), R(ref_u<T>()), R(prob.prec == Precision::S ? 5 * u : u)};
      const SradRef<T> ref{arith, typed<T>(prob.image), nx, ny, arith.exact(R(prob.scalar("q0sqr")->value)),
                           arith.exact(R(prob.scalar("lambda")->value))};
      auto v = check_running<kFields, R>(n, got, [&](std::size_t k, Running<R>* o) { ref.pixel(k, o); });
      v.bound = "running error bound of each step in both precisions (docs/validation.md, SRAD), per pixel for J, "
                "dN, dS, dW, dE and c";
      return v;
    });
  }
};

OpRegistrar<SradOp> registered_srad;

}  // namespace
}  // namespace hetbench
