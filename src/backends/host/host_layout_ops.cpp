// Host variants of the ops over laid-out records (nbody, stencil3d, srad, mriq, seismic): loops that read and
// write fields through FieldView, the host's counterpart of the kernels' generated
// accessors, so that the layout changes the memory traffic and not the code.
#include <cmath>

#include "backends/host/host_variant.hpp"
#include "ops/layout_op.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

template <class T>
void nbody(const HostCall& c, int threads) {
  const auto& prob = dynamic_cast<const LayoutProblem&>(*c.prob);
  const auto n = static_cast<std::size_t>(c.size("n"));
  const T eps2 = static_cast<T>(prob.scalar("eps2")->value);
  const auto& b = prob.layout.operand("body");
  const auto& a = prob.layout.operand("acc");
  T* body = c.ptr<T>("body");
  T* acc = c.ptr<T>("acc");
  const auto x = field_view(b, "x", n, body), y = field_view(b, "y", n, body), z = field_view(b, "z", n, body),
             m = field_view(b, "m", n, body);
  const auto ax = field_view(a, "ax", n, acc), ay = field_view(a, "ay", n, acc), az = field_view(a, "az", n, acc);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const T xi = x[i], yi = y[i], zi = z[i];
    T sx = 0, sy = 0, sz = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const T dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
      const T r2 = dx * dx + dy * dy + dz * dz + eps2;
      const T inv = T(1) / std::sqrt(r2);
      const T s = m[j] * (inv * inv * inv);
      sx += dx * s;
      sy += dy * s;
      sz += dz * s;
    }
    ax[i] = sx;
    ay[i] = sy;
    az[i] = sz;
  }
}

template <class T>
void stencil(const HostCall& c, int threads) {
  const auto& prob = dynamic_cast<const LayoutProblem&>(*c.prob);
  const auto nx = static_cast<std::size_t>(c.size("nx")), ny = static_cast<std::size_t>(c.size("ny")),
             nz = static_cast<std::size_t>(c.size("nz"));
  const std::size_t n = nx * ny * nz, plane = nx * ny;
  const auto& g = prob.layout.operand("grid");
  T* grid = c.ptr<T>("grid");
  const auto u = field_view(g, "u", n, grid), f = field_view(g, "f", n, grid), w = field_view(g, "w", n, grid);
  const auto v = field_view(prob.layout.operand("out"), "v", n, c.ptr<T>("out"));
#pragma omp parallel for collapse(2) num_threads(threads) schedule(static)
  for (std::size_t z = 0; z < nz; ++z)
    for (std::size_t y = 0; y < ny; ++y)
      for (std::size_t x = 0; x < nx; ++x) {
        const std::size_t p = z * plane + y * nx + x;
        const T s = u[x > 0 ? p - 1 : p] + u[x + 1 < nx ? p + 1 : p] + u[y > 0 ? p - nx : p] +
                    u[y + 1 < ny ? p + nx : p] + u[z > 0 ? p - plane : p] + u[z + 1 < nz ? p + plane : p];
        const T wp = w[p];
        v[p] = (f[p] + wp * s) / (T(1) + T(6) * wp);
      }
}

// Rodinia's two SRAD kernels as two parallel loops, in the order of src/ops/srad.cpp's
// reference; the second updates J in place, reading only its own pixel's J.
template <class T>
void srad(const HostCall& c, int threads) {
  const auto& prob = dynamic_cast<const LayoutProblem&>(*c.prob);
  const auto nx = static_cast<std::size_t>(c.size("nx")), ny = static_cast<std::size_t>(c.size("ny"));
  const std::size_t n = nx * ny;
  const T q0 = static_cast<T>(prob.scalar("q0sqr")->value), lam = static_cast<T>(prob.scalar("lambda")->value);
  const auto& o = prob.layout.operand("img");
  T* img = c.ptr<T>("img");
  const auto J = field_view(o, "J", n, img), dN = field_view(o, "dN", n, img), dS = field_view(o, "dS", n, img),
             dW = field_view(o, "dW", n, img), dE = field_view(o, "dE", n, img), C = field_view(o, "c", n, img);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t y = 0; y < ny; ++y)
    for (std::size_t x = 0; x < nx; ++x) {
      const std::size_t k = y * nx + x;
      const T jc = J[k];
      const T dn = J[y > 0 ? k - nx : k] - jc, ds = J[y + 1 < ny ? k + nx : k] - jc;
      const T dw = J[x > 0 ? k - 1 : k] - jc, de = J[x + 1 < nx ? k + 1 : k] - jc;
      const T g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
      const T l = (dn + ds + dw + de) / jc;
      const T num = T(0.5) * g2 - T(0.0625) * (l * l);
      const T den = T(1) + T(0.25) * l;
      const T qsqr = num / (den * den);
      const T d2 = (qsqr - q0) / (q0 * (T(1) + q0));
      const T cc = T(1) / (T(1) + d2);
      dN[k] = dn;
      dS[k] = ds;
      dW[k] = dw;
      dE[k] = de;
      C[k] = cc < T(0) ? T(0) : (cc > T(1) ? T(1) : cc);
    }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t y = 0; y < ny; ++y)
    for (std::size_t x = 0; x < nx; ++x) {
      const std::size_t k = y * nx + x;
      const T cc = C[k], cs = C[y + 1 < ny ? k + nx : k], ce = C[x + 1 < nx ? k + 1 : k];
      const T d = cc * dN[k] + cs * dS[k] + cc * dW[k] + ce * dE[k];
      J[k] = J[k] + T(0.25) * lam * d;
    }
}

// Parboil's ComputePhiMag and ComputeQ: per voxel, the sum over every k-space sample in
// the kernel's order (src/ops/mriq.cpp's bound holds for any order).
template <class T>
void mriq(const HostCall& c, int threads) {
  const auto& prob = dynamic_cast<const LayoutProblem&>(*c.prob);
  const auto n = static_cast<std::size_t>(c.size("n")), nk = static_cast<std::size_t>(c.size("nk"));
  const auto& ko = prob.layout.operand("kspace");
  const auto& vo = prob.layout.operand("vox");
  const auto& qo = prob.layout.operand("q");
  T* ks = c.ptr<T>("kspace");
  T* vx = c.ptr<T>("vox");
  T* q = c.ptr<T>("q");
  const auto kx = field_view(ko, "kx", nk, ks), ky = field_view(ko, "ky", nk, ks), kz = field_view(ko, "kz", nk, ks),
             pr = field_view(ko, "phiR", nk, ks), pi = field_view(ko, "phiI", nk, ks), phi = field_view(ko, "phiMag", nk, ks);
  const auto x = field_view(vo, "x", n, vx), y = field_view(vo, "y", n, vx), z = field_view(vo, "z", n, vx);
  const auto qr = field_view(qo, "qr", n, q), qi = field_view(qo, "qi", n, q);
  const T two_pi = static_cast<T>(6.283185307179586476925286766559);
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (std::size_t k = 0; k < nk; ++k) phi[k] = pr[k] * pr[k] + pi[k] * pi[k];
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const T xi = x[i], yi = y[i], zi = z[i];
      T sr = 0, si = 0;
      for (std::size_t k = 0; k < nk; ++k) {
        const T arg = two_pi * (kx[k] * xi + ky[k] * yi + kz[k] * zi);
        sr += phi[k] * std::cos(arg);
        si += phi[k] * std::sin(arg);
      }
      qr[i] = sr;
      qi[i] = si;
    }
  }
}

// Virieux's two kernels as two parallel loops, in the order of src/ops/seismic.cpp's
// reference: each updates fields that the other loop's neighbours do not read in it.
template <class T>
void seismic(const HostCall& c, int threads) {
  const auto& prob = dynamic_cast<const LayoutProblem&>(*c.prob);
  const auto nx = static_cast<std::size_t>(c.size("nx")), nz = static_cast<std::size_t>(c.size("nz"));
  const std::size_t n = nx * nz;
  const T dth = static_cast<T>(prob.scalar("dth")->value);
  const auto& o = prob.layout.operand("cell");
  T* cell = c.ptr<T>("cell");
  const auto vx = field_view(o, "vx", n, cell), vz = field_view(o, "vz", n, cell), sxx = field_view(o, "sxx", n, cell),
             szz = field_view(o, "szz", n, cell), sxz = field_view(o, "sxz", n, cell), b = field_view(o, "b", n, cell),
             lam = field_view(o, "lam", n, cell), mu = field_view(o, "mu", n, cell);
  auto each = [&](auto body) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t z = 0; z < nz; ++z)
      for (std::size_t x = 0; x < nx; ++x) {
        const std::size_t k = z * nx + x;
        body(k, x > 0 ? k - 1 : k, x + 1 < nx ? k + 1 : k, z > 0 ? k - nx : k, z + 1 < nz ? k + nx : k);
      }
  };
  each([&](std::size_t k, std::size_t xm, std::size_t xp, std::size_t zm, std::size_t zp) {
    const T db = dth * b[k], s = sxz[k];
    vx[k] = vx[k] + db * ((sxx[xp] - sxx[k]) + (s - sxz[zm]));
    vz[k] = vz[k] + db * ((s - sxz[xm]) + (szz[zp] - szz[k]));
  });
  each([&](std::size_t k, std::size_t xm, std::size_t xp, std::size_t zm, std::size_t zp) {
    const T dvxx = vx[k] - vx[xm], dvzz = vz[k] - vz[zm], dvxz = vx[zp] - vx[k], dvzx = vz[xp] - vz[k];
    const T l = lam[k], m = mu[k], l2m = l + T(2) * m;
    sxx[k] = sxx[k] + dth * (l2m * dvxx + l * dvzz);
    szz[k] = szz[k] + dth * (l * dvxx + l2m * dvzz);
    sxz[k] = sxz[k] + dth * m * (dvxz + dvzx);
  });
}

// One OpenMP variant per op, in S (float) and D (double), the precisions the op has.
void reg(const char* op, const char* desc, void (*s)(const HostCall&, int), void (*d)(const HostCall&, int)) {
  register_code_variant<HostCall>(host_code(op, "omp", desc, {threads_param()}), [s, d](const HostCall& c) {
    (c.prob->prec == Precision::S ? s : d)(c, static_cast<int>(c.param("THREADS")));
  });
}

const bool registered_host_layout_ops = [] {
  reg("nbody", "OpenMP over bodies, all pairs, fields through the layout", nbody<float>, nbody<double>);
  reg("stencil3d", "OpenMP over (z, y) rows, fields through the layout", stencil<float>, stencil<double>);
  reg("srad", "OpenMP over rows, Rodinia's two loops, fields through the layout", srad<float>, srad<double>);
  reg("mriq", "OpenMP over voxels (phiMag first), fields through the layout", mriq<float>, mriq<double>);
  reg("seismic", "OpenMP over rows, velocity then stress loop, fields through the layout", seismic<float>, seismic<double>);
  return true;
}();

}  // namespace
}  // namespace hetbench
