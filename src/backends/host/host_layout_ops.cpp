// Host variants of the ops over laid-out records (nbody, stencil3d): loops that read and
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

// One OpenMP variant per op, in S (float) and D (double), the precisions the op has.
void reg(const char* op, const char* desc, void (*s)(const HostCall&, int), void (*d)(const HostCall&, int)) {
  register_code_variant<HostCall>(host_code(op, "omp", desc, {threads_param()}), [s, d](const HostCall& c) {
    (c.prob->prec == Precision::S ? s : d)(c, static_cast<int>(c.param("THREADS")));
  });
}

const bool registered = [] {
  reg("nbody", "OpenMP over bodies, all pairs, fields through the layout", nbody<float>, nbody<double>);
  reg("stencil3d", "OpenMP over (z, y) rows, fields through the layout", stencil<float>, stencil<double>);
  return true;
}();

}  // namespace
}  // namespace hetbench
