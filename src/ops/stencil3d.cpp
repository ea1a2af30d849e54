// STENCIL3D: the 3-D Jacobi-like stencil over three buffers of Majeti et al.'s study (the
// medical-image registration kernel): per voxel p of an nx x ny x nz grid, one Jacobi step
// of (1 - w Laplacian) u = f, the smoothing step of a diffusion-regularised registration,
//   v(p) = (f(p) + w(p) * sum_{q in N6(p)} u(q)) / (1 + 6 w(p)),
// neighbours clamped at the faces. Records are voxels with fields u, f, w (in) and v
// (out), placed by the point's layout (N@LAYOUT, ops/layout_op.hpp). Sizes: NX[xNY[xNZ]].
#include "ops/layout_op.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

// Roundings of one output (docs/validation.md, stencil3d): 11 units.
constexpr double kUnits = 11;

const FieldSet& stencil_fields() {
  static const FieldSet fs{{"grid", {"u", "f", "w"}, false}, {"out", {"v"}, false}};
  return fs;
}

std::vector<Sizes> stencil_dims(const std::string& list) {
  std::vector<Sizes> out;
  for (const auto& d : parse_extents(list, 3, "stencil3d", "NX, NXxNY or NXxNYxNZ"))
    out.push_back(Sizes{{"nx", d[0]}, {"ny", d[1]}, {"nz", d[2]}, {"n", d[3]}});
  return out;
}

class StencilProblem final : public LayoutProblem {
 public:
  std::vector<Bytes> grid;  // u, f, w as arrays of n words
};

class Stencil3dOp final : public Op {
 public:
  std::string name() const override { return "stencil3d"; }
  std::string description() const override {
    return "3-D Jacobi step over three buffers (u, f, w), 6 neighbours; records placed by a layout (SIZE@LAYOUT)";
  }
  const OpSignature& signature() const override {
    static const OpSignature sig{{{"grid"},
                                  {"out", true, Elem::Real, Access::Out},
                                  {"nx", false, Elem::Int},
                                  {"ny", false, Elem::Int},
                                  {"nz", false, Elem::Int},
                                  {"n", false, Elem::Int}},
                                 {Axis::dimension("nx", "voxels along x (contiguous)"), Axis::dimension("ny", "voxels along y"),
                                  Axis::dimension("nz", "voxels along z"), Axis::dimension("n", "voxels, nx*ny*nz")}};
    return sig;
  }
  std::vector<Sizes> parse_sizes(const std::string& spec) const override {
    return parse_layout_sizes("stencil3d", stencil_fields(), spec, stencil_dims);
  }
  double device_bytes(const Sizes& s, Precision p) const override {
    return (static_cast<double>(s.at("n")) + 1024) * 4 * info(p).bytes;
  }
  std::string device_fit(const Sizes& s, Precision p, const DeviceInfo& di) const override {
    return scratch_fit(layout_of("stencil3d", stencil_fields(), s), p, di);
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem<StencilProblem>(s, p);
    const auto n = static_cast<std::size_t>(s.at("n"));
    prob->layout = layout_of("stencil3d", stencil_fields(), s);
    with_real(p, [&]<class T>() {
      prob->grid = place_records<T>(*prob, stencil_fields(), n, seed, {"w"});  // weights are positive
      return 0;
    });
    for (const char* k : {"nx", "ny", "nz", "n"}) prob->scalars.push_back({k, true, static_cast<double>(s.at(k))});
    prob->flops = 10.0 * static_cast<double>(n);  // 5 + 1 adds, 2 multiplies, 1 add, 1 division
    prob->min_bytes = 4.0 * static_cast<double>(n) * info(p).bytes;
    return prob;
  }
  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const StencilProblem&>(base);
    return with_real(prob.prec, [&]<class T>() {
      using R = ref_t<T>;
      const auto nx = static_cast<std::size_t>(prob.sizes.at("nx")), ny = static_cast<std::size_t>(prob.sizes.at("ny")),
                 nz = static_cast<std::size_t>(prob.sizes.at("nz"));
      const std::size_t n = nx * ny * nz;
      std::vector<T> got(n);
      gather_field(prob.layout.operand("out"), "v", n, sizeof(T), output(out, "out").data(),
                   reinterpret_cast<unsigned char*>(got.data()));
      const T* u = typed<T>(prob.grid[0]);
      const T* f = typed<T>(prob.grid[1]);
      const T* w = typed<T>(prob.grid[2]);
      const double uu = info(prob.prec).u;
      const long double g = gamma_n(kUnits, uu) + gamma_n(kUnits, ref_u<T>());
      auto terms = [&](std::size_t p, R& ref, R& mag) {
        const std::size_t x = p % nx, y = p / nx % ny, z = p / (nx * ny);
        const std::size_t nb[6] = {x > 0 ? p - 1 : p, x + 1 < nx ? p + 1 : p, y > 0 ? p - nx : p,
                                   y + 1 < ny ? p + nx : p, z > 0 ? p - nx * ny : p, z + 1 < nz ? p + nx * ny : p};
        R s = 0, sa = 0;
        for (std::size_t q : nb) {
          s += R(u[q]);
          sa += std::fabs(R(u[q]));
        }
        const R d = 1 + 6 * R(w[p]);
        ref = (R(f[p]) + R(w[p]) * s) / d;
        mag = (std::fabs(R(f[p])) + R(w[p]) * sa) / d;
      };
      auto v = check_each(
          n,
          [&](std::size_t p) {
            const T o = got[p];
            if (is_poison(o)) return ElementError{ElementError::unwritten};
            if (std::isnan(o)) return ElementError{ElementError::nan};
            R ref, mag;
            terms(p, ref, mag);
            return ElementError{ElementError::ok, std::fabs(static_cast<long double>(o) - ref), static_cast<long double>(ref)};
          },
          [&](std::size_t p) {
            R ref, mag;
            terms(p, ref, mag);
            return g * static_cast<long double>(mag);
          });
      v.bound = "gamma_11 * (|f| + w * sum_6 |u_q|) / (1 + 6w)";
      return v;
    });
  }
};

OpRegistrar<Stencil3dOp> registered_stencil3d;

}  // namespace
}  // namespace hetbench
