// Vendor baselines on the host: OpenBLAS level-1 routines as variants of kind "library".
#include "backends/host/host_variant.hpp"
#include "ops/vector_common.hpp"

#ifdef HETBENCH_HAVE_OPENBLAS
#include <cblas.h>

#include <climits>
#endif

namespace hetbench {

namespace {

#ifdef HETBENCH_HAVE_OPENBLAS

// BLAS lengths are int here (LP64 OpenBLAS): longer vectors go in chunks.
constexpr std::size_t kChunk = static_cast<std::size_t>(INT_MAX) & ~static_cast<std::size_t>(63);

template <class F>
void chunked(std::size_t n, F&& f) {
  for (std::size_t o = 0; o < n; o += kChunk) f(o, static_cast<blasint>(std::min(kChunk, n - o)));
}

// AXPY is in place in BLAS (y := a·x + y) and out of place here (r = a·x + y): r = y by
// ?copy, then ?axpy on r. Both are timed, so the library moves 5n elements where the op
// needs 3n; the description says so.
void axpy_openblas(const HostCall& c) {
  const auto n = static_cast<std::size_t>(c.size("n"));
  if (c.prob->prec == Precision::S) {
    const auto a = static_cast<float>(c.scalar("alpha"));
    const float *x = c.ptr<float>("x"), *y = c.ptr<float>("y");
    float* r = c.ptr<float>("r");
    chunked(n, [&](std::size_t o, blasint m) {
      cblas_scopy(m, y + o, 1, r + o, 1);
      cblas_saxpy(m, a, x + o, 1, r + o, 1);
    });
  } else {
    const double a = c.scalar("alpha");
    const double *x = c.ptr<double>("x"), *y = c.ptr<double>("y");
    double* r = c.ptr<double>("r");
    chunked(n, [&](std::size_t o, blasint m) {
      cblas_dcopy(m, y + o, 1, r + o, 1);
      cblas_daxpy(m, a, x + o, 1, r + o, 1);
    });
  }
}

// Chunks (only beyond 2^31 elements) add their partial sums: still within γ_n.
void dot_openblas(const HostCall& c) {
  const auto n = static_cast<std::size_t>(c.size("n"));
  if (c.prob->prec == Precision::S) {
    const float *x = c.ptr<float>("x"), *y = c.ptr<float>("y");
    float s = 0;
    chunked(n, [&](std::size_t o, blasint m) { s += cblas_sdot(m, x + o, 1, y + o, 1); });
    *c.ptr<float>("result") = s;
  } else {
    const double *x = c.ptr<double>("x"), *y = c.ptr<double>("y");
    double s = 0;
    chunked(n, [&](std::size_t o, blasint m) { s += cblas_ddot(m, x + o, 1, y + o, 1); });
    *c.ptr<double>("result") = s;
  }
}

const bool registered_openblas_variants = [] {
  register_code_variant<HostCall>(
      {.op = "axpy",
       .name = "openblas",
       .description =
           "OpenBLAS cblas_?copy (r = y) then cblas_?axpy on r; the copy is timed too, since the op is out of place",
       .library = "OpenBLAS"},
      axpy_openblas);
  register_code_variant<HostCall>(
      {.op = "dot", .name = "openblas", .description = "OpenBLAS cblas_sdot / cblas_ddot", .library = "OpenBLAS"},
      dot_openblas);
  return true;
}();

#else

const bool registered_openblas_variants = [] {
  for (const char* id : {"host/axpy/openblas", "host/dot/openblas"})
    missing_baselines().emplace_back(id, "OpenBLAS was not found at build time (install libopenblas-dev)");
  return true;
}();

#endif

}  // namespace
}  // namespace hetbench
