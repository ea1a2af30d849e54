// SEISMIC: one time step of 2-D P-SV elastic wave propagation in the velocity-stress form
// on a staggered grid (Virieux, "P-SV wave propagation in heterogeneous media:
// velocity-stress finite-difference method", Geophysics 51(4), 1986), the multi-field
// seismic stencil of Majeti et al.'s layout study. Each cell of an nx x nz grid (x
// contiguous) is a record of eight fields: the particle velocities vx, vz and the stresses
// sxx, szz, sxz (updated in place) and the medium's buoyancy b = 1/rho and Lame parameters
// lam, mu (read only), one operand `cell` placed by the point's layout (NX[xNZ]@LAYOUT):
//   kernel 1: vx += dth b (D+x sxx + D-z sxz),  vz += dth b (D-x sxz + D+z szz)
//   kernel 2: sxx += dth ((lam + 2mu) D-x vx + lam D-z vz), szz += dth (lam D-x vx + (lam + 2mu) D-z vz),
//             sxz += dth mu (D+z vx + D+x vz)
// with D+ / D- the forward / backward differences (vx sits half a cell along x, vz half a
// cell along z, sxz at the corner), neighbours clamped at the edges (a zero difference
// there), and dth = dt/h = 1/16.

#include "ops/layout_op.hpp"
#include "ops/running_error.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

constexpr double kDth = 1.0 / 16;
constexpr std::size_t kState = 5;  // vx, vz, sxx, szz, sxz: the checked outputs, in this order

const FieldSet& seismic_fields() {
  static const FieldSet fs{{"cell", {"vx", "vz", "sxx", "szz", "sxz", "b", "lam", "mu"}, false}};
  return fs;
}

std::vector<Sizes> seismic_dims(const std::string& list) {
  std::vector<Sizes> out;
  for (const auto& d : parse_extents(list, 2, "seismic", "NX or NXxNZ"))
    out.push_back(Sizes{{"nx", d[0]}, {"nz", d[1]}, {"n", d[2]}});
  return out;
}

class SeismicProblem final : public LayoutProblem {
 public:
  std::map<std::string, Bytes> in;  // the eight fields as seeded
};

// The kernels' arithmetic in running-error form (ops/running_error.hpp), in the order
// virieux.k and the host variant evaluate it.
template <class T>
struct SeismicRef {
  using R = ref_t<T>;
  using V = Running<R>;
  RunningArith<R> a;
  const T *vx, *vz, *sxx, *szz, *sxz, *b, *lam, *mu;
  std::size_t nx, nz;
  V dth;

  V at(const T* f, std::size_t k) const { return a.exact(R(f[k])); }
  std::size_t xm(std::size_t k) const { return k % nx > 0 ? k - 1 : k; }
  std::size_t xp(std::size_t k) const { return k % nx + 1 < nx ? k + 1 : k; }
  std::size_t zm(std::size_t k) const { return k / nx > 0 ? k - nx : k; }
  std::size_t zp(std::size_t k) const { return k / nx + 1 < nz ? k + nx : k; }
  V diff(const T* f, std::size_t hi, std::size_t lo) const { return a.sub(at(f, hi), at(f, lo)); }
  // kernel 1 at cell k: the new vx, vz
  void velocity(std::size_t k, V& nvx, V& nvz) const {
    const V db = a.mul(dth, at(b, k));
    nvx = a.add(at(vx, k), a.mul(db, a.add(diff(sxx, xp(k), k), diff(sxz, k, zm(k)))));
    nvz = a.add(at(vz, k), a.mul(db, a.add(diff(sxz, k, xm(k)), diff(szz, zp(k), k))));
  }
  void cell(std::size_t k, V out[kState]) const {
    V vxk, vzk, vxl, vzl, t;
    velocity(k, vxk, vzk);
    velocity(xm(k), vxl, t);
    const V dvxx = a.sub(vxk, vxl);  // D-x vx
    velocity(zm(k), t, vzl);
    const V dvzz = a.sub(vzk, vzl);  // D-z vz
    V vxz, vzx;
    velocity(zp(k), vxz, t);
    velocity(xp(k), t, vzx);
    const V dvxz = a.sub(vxz, vxk), dvzx = a.sub(vzx, vzk);  // D+z vx, D+x vz
    const V l = at(lam, k), m = at(mu, k);
    const V l2m = a.add(l, a.mul(a.exact(2), m));
    out[0] = vxk;
    out[1] = vzk;
    out[2] = a.add(at(sxx, k), a.mul(dth, a.add(a.mul(l2m, dvxx), a.mul(l, dvzz))));
    out[3] = a.add(at(szz, k), a.mul(dth, a.add(a.mul(l, dvxx), a.mul(l2m, dvzz))));
    out[4] = a.add(at(sxz, k), a.mul(a.mul(dth, m), a.add(dvxz, dvzx)));
  }
};

class SeismicOp final : public Op {
 public:
  std::string name() const override { return "seismic"; }
  std::string description() const override {
    return "one velocity-stress step of 2-D P-SV waves on a staggered grid (Virieux), 8 fields a cell; layouts (SIZE@LAYOUT)";
  }
  const OpSignature& signature() const override {
    static const OpSignature sig{{{"cell", true, Elem::Real, Access::InOut},
                                  {"dth", false},
                                  {"nx", false, Elem::Int},
                                  {"nz", false, Elem::Int},
                                  {"n", false, Elem::Int}},
                                 {Axis::dimension("nx", "cells along x (contiguous)"), Axis::dimension("nz", "cells along z"),
                                  Axis::dimension("n", "cells, nx*nz")}};
    return sig;
  }
  std::vector<Sizes> parse_sizes(const std::string& spec) const override {
    return parse_layout_sizes("seismic", seismic_fields(), spec, seismic_dims, "");  // the kernels tile nothing
  }
  double device_bytes(const Sizes& s, Precision p) const override {
    return (static_cast<double>(s.at("n")) + 1024) * 8 * 2 * info(p).bytes;  // the buffer and its pristine copy
  }
  std::string device_fit(const Sizes& s, Precision p, const DeviceInfo& di) const override {
    return scratch_fit(layout_of("seismic", seismic_fields(), s), p, di);
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem<SeismicProblem>(s, p);
    const auto n = static_cast<std::size_t>(s.at("n"));
    prob->layout = layout_of("seismic", seismic_fields(), s);
    with_real(p, [&]<class T>() {
      auto in = place_fields<T>(*prob, seismic_fields(), {n}, {Access::InOut}, seed, seismic_fields()[0].fields,
                                {"b", "lam", "mu"});  // the medium: positive
      for (auto& [f, v] : in) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(v.data());
        prob->in[f].assign(bytes, bytes + v.size() * sizeof(T));
      }
      return 0;
    });
    prob->scalars.push_back({"dth", false, kDth});
    for (const char* k : {"nx", "nz", "n"}) prob->scalars.push_back({k, true, static_cast<double>(s.at(k))});
    prob->flops = 32.0 * static_cast<double>(n);  // kernel 1: 12, kernel 2: 20
    // kernel 1 reads 6 fields and writes 2, kernel 2 reads 7 and writes 3
    prob->min_bytes = 18.0 * static_cast<double>(n) * info(p).bytes;
    return prob;
  }
  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const SeismicProblem&>(base);
    return with_real(prob.prec, [&]<class T>() {
      using R = ref_t<T>;
      const auto nx = static_cast<std::size_t>(prob.sizes.at("nx")), nz = static_cast<std::size_t>(prob.sizes.at("nz"));
      const std::size_t n = nx * nz;
      const auto& fields = seismic_fields()[0].fields;  // the first kState are the state
      const auto got = gather_fields<T>(prob.layout.operand("cell"), {fields.begin(), fields.begin() + kState}, n,
                                        output(out, "cell"));
      const double u = info(prob.prec).u;
      const RunningArith<R> arith{R(u), R(ref_u<T>()), R(prob.prec == Precision::S ? 5 * u : u)};
      auto in = [&](const char* f) { return typed<T>(prob.in.at(f)); };
      const SeismicRef<T> ref{arith,   in("vx"), in("vz"), in("sxx"), in("szz"), in("sxz"), in("b"), in("lam"),
                              in("mu"), nx,       nz,       arith.exact(R(prob.scalar("dth")->value))};
      auto v = check_running<kState, R>(n, got, [&](std::size_t k, Running<R>* o) { ref.cell(k, o); });
      v.bound = "running error bound of each step in both precisions (docs/validation.md, seismic), per cell for vx, vz, "
                "sxx, szz and sxz";
      return v;
    });
  }
};

OpRegistrar<SeismicOp> registered_seismic;

}  // namespace
}  // namespace hetbench
