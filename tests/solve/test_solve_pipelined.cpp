// CG with its scalars on the device (a window of iterations issued, then one read-back)
// against the same operator read back at every coefficient (SolverOps' host defaults):
// the same arithmetic, so the same iteration count, stop reason, residual history and
// solution, bit for bit, for converged, max-iter and breakdown ends (docs/solvers.md).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "solve/krylov.hpp"
#include "solve/variant_ops.hpp"
#include "sparse/generators.hpp"
#include "solve_devices.hpp"
#include "test_util.hpp"
#include "util/random.hpp"

namespace hetbench {
namespace {

// Forwards the kernels to a device operator and keeps the scalar operations' host
// defaults: every alpha and beta is read back before its axpy.
class ReadBackEveryTime final : public SolverOps {
 public:
  explicit ReadBackEveryTime(SolverOps& o) : o_(o) {}
  std::size_t rows() const override { return o_.rows(); }
  Precision precision() const override { return o_.precision(); }
  std::unique_ptr<SolverVector> vector() override { return o_.vector(); }
  void upload(SolverVector& v, const std::vector<double>& h) override { o_.upload(v, h); }
  std::vector<double> download(SolverVector& v) override { return o_.download(v); }
  void copy(SolverVector& s, SolverVector& d) override { o_.copy(s, d); }
  void apply(SolverVector& x, SolverVector& y) override { o_.apply(x, y); }
  void residual(SolverVector& b, SolverVector& x, SolverVector& r) override { o_.residual(b, x, r); }
  void precondition(SolverVector& r, SolverVector& z) override { o_.precondition(r, z); }
  double dot(SolverVector& x, SolverVector& y) override { return o_.dot(x, y); }
  std::vector<double> dots(const std::vector<std::pair<SolverVector*, SolverVector*>>& p) override {
    ++waits;
    return o_.dots(p);
  }
  void axpy(double a, SolverVector& x, SolverVector& y, SolverVector& r) override { o_.axpy(a, x, y, r); }
  void time_kernels(bool on) override { o_.time_kernels(on); }
  const KernelTimes& times() const override { return o_.times(); }
  void reset_times() override { o_.reset_times(); }
  void finish() override { o_.finish(); }
  std::vector<std::string> kernels() const override { return o_.kernels(); }
  long waits = 0;

 private:
  SolverOps& o_;
};

struct Solved {
  KrylovResult r;
  std::vector<double> x;
};

Solved solve(SolverOps& ops, const std::vector<double>& b, const KrylovOptions& o) {
  auto bv = ops.vector(), xv = ops.vector();
  ops.upload(*bv, b);
  Solved s{krylov_solve(ops, *bv, *xv, o), {}};
  s.x = ops.download(*xv);
  return s;
}

// A symmetric matrix with a random sign pattern on the diagonal when `indefinite`
// (CG breaks down on p·Ap <= 0), else the 2-D Poisson matrix with its diagonal scaled by
// a random factor in [1.5, 3.5): strictly diagonally dominant, so SPD.
CsrMatrix matrix(std::uint64_t seed, bool indefinite) {
  CsrMatrix a = generate_matrix("gen:poisson2d:n=23", seed);
  for (int64_t i = 0; i < a.rows; ++i)
    for (auto q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q)
      if (a.colidx[q] == i) {
        const double u = random_value(seed, 5, i);
        a.values[q] *= indefinite && u < -0.3 ? -1.0 : 2.5 + u;
      }
  return a;
}

void same(const Solved& pipelined, const Solved& every, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(pipelined.r.why, every.r.why) << pipelined.r.detail << " | " << every.r.detail;
  EXPECT_EQ(pipelined.r.iterations, every.r.iterations);
  EXPECT_EQ(pipelined.r.detail, every.r.detail);
  EXPECT_EQ(pipelined.r.history, every.r.history);
  EXPECT_EQ(pipelined.x, every.x);
  EXPECT_GE(pipelined.r.issued, pipelined.r.iterations);
}

TEST(SolvePipelined, CgEqualsTheVersionThatReadsBackEveryCoefficient) {
  const auto seed = fresh_seed();
  const auto spd = std::make_shared<const CsrMatrix>(matrix(seed, false));
  const auto indefinite = std::make_shared<const CsrMatrix>(matrix(seed + 1, true));
  std::vector<double> b(static_cast<std::size_t>(spd->rows));
  fill_random(b.data(), b.size(), seed, 3);
  for (const auto& dev : test::solve_devices())
    for (auto p : {Precision::S, Precision::D})
      for (long window : {1L, 5L, 16L}) {
        SCOPED_TRACE(fmt::format("{} {} check_every {} seed {}", dev->id(), name(p), window, seed));
        KrylovOptions o;
        o.check_every = window;
        o.tol = p == Precision::S ? 1e-5 : 1e-10;
        auto ops = make_variant_ops(*dev, spd, p, {}, Preconditioner::Jacobi);
        ReadBackEveryTime every(*ops);
        const auto a = solve(*ops, b, o), e = solve(every, b, o);
        same(a, e, "converged");
        EXPECT_EQ(a.r.why, StopWhy::Converged);
        // A device issues whole windows (its scalars stay there: PoCL has binary64); the
        // host's defaults stop at the stopping iteration.
        const long windows = (a.r.iterations + window - 1) / window;
        EXPECT_EQ(a.r.issued, dev->info().backend == BackendKind::Host ? a.r.iterations : windows * window);
        // The reference waits twice per iteration, so the two really differ in their waits.
        EXPECT_GE(every.waits, 2 * e.r.iterations);
        // Stopped by --max-iter at an iteration that is not a window's end.
        o.max_iter = 7;
        same(solve(*ops, b, o), solve(every, b, o), "max-iter");
        o.max_iter = 1000;
        // No preconditioner: the indefinite diagonal gives p·Ap <= 0 at some iteration.
        auto ind = make_variant_ops(*dev, indefinite, p, {}, Preconditioner::None);
        ReadBackEveryTime ind_every(*ind);
        const auto bi = solve(*ind, b, o), ei = solve(ind_every, b, o);
        same(bi, ei, "breakdown");
        EXPECT_EQ(bi.r.why, StopWhy::Breakdown) << bi.r.detail;
      }
}

}  // namespace
}  // namespace hetbench
