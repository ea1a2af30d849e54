// hetbench solve: CG, BiCGStab and the Arnoldi family (GMRES, FGMRES, FOM, IOM) over the op kernels on the host and PoCL,
// mixed-precision refinement, and the bad-input cases of the CLI (docs/solvers.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "engine/record/results.hpp"

#include "solve/krylov.hpp"
#include "solve/refine.hpp"
#include "solve/true_residual.hpp"
#include "solve/variant_ops.hpp"
#include "sparse/generators.hpp"
#include "solve_devices.hpp"
#include "test_util.hpp"
#include "util/random.hpp"

namespace hetbench {
namespace {

// A random sparse matrix, symmetric when `sym`, strictly diagonally dominant with a
// positive diagonal (so SPD when symmetric), about k off-diagonal entries per row.
CsrMatrix dominant(int64_t n, int k, std::uint64_t seed, bool sym) {
  std::vector<int32_t> r, c;
  std::vector<double> v;
  std::vector<double> rowsum(n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int t = 0; t < k; ++t) {
      const auto j = static_cast<int64_t>((random_value(seed, 1, i * k + t) + 1) / 2 * n) % n;
      if (j == i) continue;
      const double a = random_value(seed, 2, i * k + t);
      r.push_back(static_cast<int32_t>(i)), c.push_back(static_cast<int32_t>(j)), v.push_back(a);
      rowsum[i] += std::fabs(a);
      if (sym) {
        r.push_back(static_cast<int32_t>(j)), c.push_back(static_cast<int32_t>(i)), v.push_back(a);
        rowsum[j] += std::fabs(a);
      }
    }
  for (int64_t i = 0; i < n; ++i)
    r.push_back(static_cast<int32_t>(i)), c.push_back(static_cast<int32_t>(i)), v.push_back(rowsum[i] + 1 + (i % 7));
  return csr_from_coo(n, n, r, c, v);
}

struct Case {
  std::string what;
  std::shared_ptr<const CsrMatrix> a;
  KrylovMethod method;
};

// Solves with a seeded random b and checks convergence and the true residual's bound;
// returns the iterations.
long check_solve(Device& dev, const Case& c, Precision p, std::uint64_t seed,
                 Preconditioner m = Preconditioner::Jacobi) {
  SCOPED_TRACE(fmt::format("{} {} {} on {} seed {}, {}", to_string(c.method), c.what, name(p), dev.id(), seed,
                           to_string(m)));
  auto ops = make_variant_ops(dev, c.a, p, {}, m);
  std::vector<double> b(static_cast<std::size_t>(c.a->rows));
  fill_random(b.data(), b.size(), seed, 21);
  auto bv = ops->vector(), xv = ops->vector();
  ops->upload(*bv, b);
  KrylovOptions o;
  o.method = c.method;
  o.tol = p == Precision::S ? 1e-5 : 1e-10;
  o.max_iter = 2000;
  o.restart = 17;
  const auto r = krylov_solve(*ops, *bv, *xv, o);
  EXPECT_EQ(r.why, StopWhy::Converged) << r.detail;
  EXPECT_LE(r.history.back(), o.tol);
  EXPECT_GT(r.history.front(), o.tol);
  const auto tr = krylov_true_residual(*c.a, b, {ops->download(*xv), {}}, p, o.tol, r.iterations);
  EXPECT_TRUE(tr.within()) << tr.rel << " > " << tr.rel_bound;
  // Not a vacuous bound: the solve is far better than x = 0 would be.
  EXPECT_LT(tr.rel, 100 * o.tol);
  return r.iterations;
}

TEST(Solve, EveryMethodConvergesOnHostAndOpenCL) {
  const auto seed = fresh_seed();
  const auto spd = std::make_shared<const CsrMatrix>(dominant(1001, 4, seed, true));
  const auto nonsym = std::make_shared<const CsrMatrix>(dominant(777, 5, seed + 1, false));
  const auto p2 = std::make_shared<const CsrMatrix>(generate_matrix("gen:poisson2d:n=29", seed));
  const auto p3 = std::make_shared<const CsrMatrix>(generate_matrix("gen:poisson3d:n=11", seed));
  std::vector<Case> cases = {{"poisson2d 29", p2, KrylovMethod::CG},       {"poisson3d 11", p3, KrylovMethod::CG},
                             {"spd 1001", spd, KrylovMethod::CG},          {"poisson3d 11", p3, KrylovMethod::BiCGStab},
                             {"nonsym 777", nonsym, KrylovMethod::BiCGStab}, {"poisson2d 29", p2, KrylovMethod::GMRES},
                             {"nonsym 777", nonsym, KrylovMethod::GMRES},   {"nonsym 777", nonsym, KrylovMethod::FGMRES},
                             {"poisson2d 29", p2, KrylovMethod::FOM},       {"nonsym 777", nonsym, KrylovMethod::FOM},
                             {"poisson3d 11", p3, KrylovMethod::IOM},       {"nonsym 777", nonsym, KrylovMethod::IOM}};
  for (const auto& dev : test::solve_devices())
    for (const auto& c : cases)
      for (auto p : {Precision::S, Precision::D}) check_solve(*dev, c, p, seed);
}

// The relations that make the four Arnoldi methods what they are, on one right-hand side:
// FGMRES with a fixed preconditioner is GMRES; FOM's residual is GMRES's over |cos| of the
// step's rotation, never smaller and somewhere larger; IOM whose window covers the cycle
// is FOM operation for operation; on a symmetric matrix (no preconditioner) Arnoldi's H
// is tridiagonal, so IOM(2) follows FOM.
TEST(Solve, ArnoldiMethodsKeepTheirRelations) {
  const auto seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  auto dev = resolve_devices("host")[0];
  const auto nonsym = std::make_shared<const CsrMatrix>(dominant(501, 5, seed, false));
  const auto p2 = std::make_shared<const CsrMatrix>(generate_matrix("gen:poisson2d:n=23", seed));
  auto solve = [&](const std::shared_ptr<const CsrMatrix>& a, KrylovMethod method, Preconditioner m, int restart,
                   int truncate) {
    auto ops = make_variant_ops(*dev, a, Precision::D, {}, m);
    std::vector<double> b(static_cast<std::size_t>(a->rows));
    fill_random(b.data(), b.size(), seed, 21);
    auto bv = ops->vector(), xv = ops->vector();
    ops->upload(*bv, b);
    KrylovOptions o;
    o.method = method;
    o.tol = 1e-10;
    o.max_iter = 3000;
    o.restart = restart;
    o.truncate = truncate;
    auto r = krylov_solve(*ops, *bv, *xv, o);
    EXPECT_EQ(r.why, StopWhy::Converged) << to_string(method) << ": " << r.detail;
    return r;
  };
  const auto gm = solve(nonsym, KrylovMethod::GMRES, Preconditioner::Jacobi, 20, 5);
  const auto fg = solve(nonsym, KrylovMethod::FGMRES, Preconditioner::Jacobi, 20, 5);
  EXPECT_NEAR(fg.iterations, gm.iterations, 1);
  for (std::size_t k = 0; k < std::min<std::size_t>(gm.history.size(), 8); ++k)
    EXPECT_NEAR(fg.history[k], gm.history[k], 1e-9 * gm.history[k] + 1e-14) << "step " << k;

  const auto fom = solve(nonsym, KrylovMethod::FOM, Preconditioner::Jacobi, 20, 5);
  const std::size_t cycle = std::min<std::size_t>({fom.history.size(), gm.history.size(), 21});
  double most = 0;
  for (std::size_t k = 1; k < cycle; ++k) {
    EXPECT_GE(fom.history[k], gm.history[k] * (1 - 1e-9)) << "step " << k;
    EXPECT_LE(gm.history[k], gm.history[k - 1] * (1 + 1e-12)) << "GMRES's residual grew within a cycle, step " << k;
    most = std::max(most, fom.history[k] / gm.history[k]);
  }
  EXPECT_GT(most, 1.001) << "FOM's residuals are GMRES's: no Galerkin solve";

  const auto iom_full = solve(nonsym, KrylovMethod::IOM, Preconditioner::Jacobi, 20, 20);
  EXPECT_EQ(iom_full.history, fom.history);
  const auto iom1 = solve(nonsym, KrylovMethod::IOM, Preconditioner::Jacobi, 20, 1);
  EXPECT_NE(iom1.history, fom.history) << "a window of one vector changed nothing";

  const auto fom_sym = solve(p2, KrylovMethod::FOM, Preconditioner::None, 400, 5);
  const auto iom2 = solve(p2, KrylovMethod::IOM, Preconditioner::None, 400, 2);
  EXPECT_NEAR(static_cast<double>(iom2.iterations), static_cast<double>(fom_sym.iterations),
              0.1 * static_cast<double>(fom_sym.iterations) + 2);
}

// On a CUDA device (the GPU run; skipped here): every method in S and D from the op
// kernels, and CG and BiCGStab over the cuSPARSE + cuBLAS operators.
TEST(Solve, CudaKernelsAndVendorOperators) {
  std::vector<std::shared_ptr<Device>> gpus;
  try {
    gpus = resolve_devices("cuda:0");
  } catch (const Error& e) {
    GTEST_SKIP() << "no CUDA device: " << e.what();
  }
  const auto seed = fresh_seed();
  const auto p3 = std::make_shared<const CsrMatrix>(generate_matrix("gen:poisson3d:n=23", seed));
  const auto nonsym = std::make_shared<const CsrMatrix>(dominant(4097, 5, seed, false));
  for (const auto& c : std::vector<Case>{{"poisson3d 23", p3, KrylovMethod::CG},
                                         {"nonsym 4097", nonsym, KrylovMethod::BiCGStab},
                                         {"nonsym 4097", nonsym, KrylovMethod::GMRES},
                                         {"nonsym 4097", nonsym, KrylovMethod::FGMRES},
                                         {"nonsym 4097", nonsym, KrylovMethod::FOM},
                                         {"nonsym 4097", nonsym, KrylovMethod::IOM}})
    for (auto p : {Precision::S, Precision::D}) check_solve(*gpus[0], c, p, seed);
  for (auto method : {KrylovMethod::CG, KrylovMethod::BiCGStab})
    for (auto p : {Precision::S, Precision::D}) {
      SCOPED_TRACE(fmt::format("vendor {} {}", to_string(method), name(p)));
      auto make = vendor_solver_ops(BackendKind::Cuda);
      ASSERT_TRUE(make);
      auto ops = make(*gpus[0], p3, p, Preconditioner::Jacobi);
      std::vector<double> b(static_cast<std::size_t>(p3->rows));
      fill_random(b.data(), b.size(), seed, 21);
      auto bv = ops->vector(), xv = ops->vector();
      ops->upload(*bv, b);
      KrylovOptions o;
      o.method = method;
      o.tol = p == Precision::S ? 1e-5 : 1e-10;
      const auto r = krylov_solve(*ops, *bv, *xv, o);
      EXPECT_EQ(r.why, StopWhy::Converged) << r.detail;
      const auto tr = krylov_true_residual(*p3, b, {ops->download(*xv), {}}, p, o.tol, r.iterations);
      EXPECT_TRUE(tr.within()) << tr.rel << " > " << tr.rel_bound;
    }
}

// ILU(0) from cuSPARSE under hetbench's kernels: every method converges within its bound
// in fewer iterations than with Jacobi; the vendor composition takes it too; a zero pivot
// is named by its row. Where no vendor library provides it, one clear error.
TEST(Solve, CudaIlu0CutsIterationsAndNamesAZeroPivot) {
  const auto seed = fresh_seed();
  const auto p3 = std::make_shared<const CsrMatrix>(generate_matrix("gen:poisson3d:n=23", seed));
  const auto nonsym = std::make_shared<const CsrMatrix>(dominant(4097, 5, seed, false));
  auto host = resolve_devices("host");
  try {
    make_variant_ops(*host[0], p3, Precision::D, {}, Preconditioner::Ilu0);
    ADD_FAILURE() << "ILU(0) on the host device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuSPARSE"), std::string::npos) << e.what();
  }
  std::vector<std::shared_ptr<Device>> gpus;
  try {
    gpus = resolve_devices("cuda:0");
  } catch (const Error& e) {
    GTEST_SKIP() << "no CUDA device: " << e.what();
  }
  for (const auto& c : std::vector<Case>{{"poisson3d 23", p3, KrylovMethod::CG},
                                         {"nonsym 4097", nonsym, KrylovMethod::BiCGStab},
                                         {"nonsym 4097", nonsym, KrylovMethod::GMRES},
                                         {"nonsym 4097", nonsym, KrylovMethod::FGMRES},
                                         {"nonsym 4097", nonsym, KrylovMethod::FOM},
                                         {"nonsym 4097", nonsym, KrylovMethod::IOM}})
    for (auto p : {Precision::S, Precision::D}) {
      const long jacobi = check_solve(*gpus[0], c, p, seed, Preconditioner::Jacobi);
      const long ilu = check_solve(*gpus[0], c, p, seed, Preconditioner::Ilu0);
      EXPECT_LT(ilu, jacobi) << to_string(c.method) << " " << c.what << " " << name(p);
    }
  auto make = vendor_solver_ops(BackendKind::Cuda);
  ASSERT_TRUE(make);
  auto ops = make(*gpus[0], p3, Precision::D, Preconditioner::Ilu0);
  std::vector<double> b(static_cast<std::size_t>(p3->rows));
  fill_random(b.data(), b.size(), seed, 21);
  auto bv = ops->vector(), xv = ops->vector();
  ops->upload(*bv, b);
  KrylovOptions o;
  o.tol = 1e-10;
  const auto r = krylov_solve(*ops, *bv, *xv, o);
  EXPECT_EQ(r.why, StopWhy::Converged) << r.detail;
  EXPECT_TRUE(krylov_true_residual(*p3, b, {ops->download(*xv), {}}, Precision::D, o.tol, r.iterations).within());
  // a_11 = 0: U's first pivot is 0, named by its row.
  CsrMatrix hole = *p3;
  for (auto q = hole.rowptr[0]; q < hole.rowptr[1]; ++q)
    if (hole.colidx[q] == 0) hole.values[q] = 0;
  try {
    make_variant_ops(*gpus[0], std::make_shared<const CsrMatrix>(hole), Precision::D, {}, Preconditioner::Ilu0);
    ADD_FAILURE() << "a zero pivot went unnoticed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 1 ("), std::string::npos) << e.what();
  }
}

TEST(Solve, KernelTimesSplitByKind) {
  auto dev = resolve_devices("host").front();
  const auto a = std::make_shared<const CsrMatrix>(generate_matrix("gen:poisson2d:n=20", 1));
  auto ops = make_variant_ops(*dev, a, Precision::D, {}, Preconditioner::Jacobi);
  std::vector<double> b(static_cast<std::size_t>(a->rows));
  fill_random(b.data(), b.size(), fresh_seed(), 21);
  auto bv = ops->vector(), xv = ops->vector();
  ops->upload(*bv, b);
  ops->time_kernels(true);
  const auto r = krylov_solve(*ops, *bv, *xv, {});
  ASSERT_EQ(r.why, StopWhy::Converged);
  const auto& t = ops->times();
  // CG: one SpMV, one preconditioner and three DOTs per iteration, beside the set-up
  // (r₀ = b − A·x₀, z₀ = M⁻¹r₀, b·b, r₀·r₀, r₀·z₀).
  EXPECT_EQ(t.calls[0], r.iterations + 1);
  EXPECT_EQ(t.calls[3], r.iterations + 1);
  EXPECT_EQ(t.calls[1], 3 * r.iterations + 3);
  for (auto s : t.seconds) EXPECT_GT(s, 0);
}

TEST(Solve, RefinementReachesDoubleWordAccuracy) {
  const auto seed = fresh_seed();
  // DF's floor is about u_DF·‖|A||x|‖/‖b‖ (x itself is held in DF): a well-conditioned
  // matrix for DF, the Poisson matrix for DD.
  const auto spd = std::make_shared<const CsrMatrix>(dominant(1234, 4, seed, true));
  const auto p2 = std::make_shared<const CsrMatrix>(generate_matrix("gen:poisson2d:n=31", seed));
  struct R {
    Precision inner, outer;
    double tol;
    std::shared_ptr<const CsrMatrix> a;
  };
  for (const auto& dev : test::solve_devices(true))
    for (const R& c : {R{Precision::S, Precision::DF, 1e-13, spd}, R{Precision::D, Precision::DD, 1e-24, p2}}) {
      SCOPED_TRACE(fmt::format("{} inner, {} outer on {}, seed {}", name(c.inner), name(c.outer), dev->id(), seed));
      const auto& a = c.a;
      std::vector<double> b(static_cast<std::size_t>(a->rows));
      fill_random(b.data(), b.size(), seed, 21);
      auto ops = make_variant_ops(*dev, a, c.inner, {}, Preconditioner::Jacobi);
      // The double words on the host, and on the device where it has them (make_dw_residual's
      // choice); each with a fixed inner reduction and the per-step one (inner_floor).
      const bool on_device = ops->device() && ops->device()->info().fp64;
      if (dev->info().backend != BackendKind::Host) EXPECT_TRUE(on_device) << "PoCL and CUDA have binary64";
      for (int k = 0; k < (on_device ? 4 : 2); ++k) {
        const bool adaptive = k % 2;
        auto res = k < 2 ? host_dw_residual(a, c.outer, *ops, b) : make_dw_residual(a, c.outer, *ops, b);
        SCOPED_TRACE(fmt::format("{} inner tolerance, double words on the {}", adaptive ? "adaptive" : "fixed",
                                 res->where()));
        RefineOptions o;
        o.tol = c.tol;
        const double floor = c.inner == Precision::S ? 1e-4 : 1e-10;
        if (adaptive)
          o.inner_floor = floor;
        else
          o.inner.tol = c.inner == Precision::S ? 1e-4 : 1e-8;
        const auto r = refine_solve(*ops, *res, o);
        EXPECT_EQ(r.why, StopWhy::Converged) << r.detail;
        EXPECT_GE(r.outer, 2);
        ASSERT_EQ(r.inner_tols.size(), static_cast<std::size_t>(r.outer));
        for (std::size_t s = 0; s < r.inner_tols.size(); ++s) {
          const double want = adaptive ? std::clamp(c.tol / r.history[s], floor, 0.5) : o.inner.tol;
          EXPECT_DOUBLE_EQ(r.inner_tols[s], want) << "step " << s;
        }
        const auto tr = refined_true_residual(*a, b, res->solution(), c.outer, c.tol);
        EXPECT_TRUE(tr.within()) << tr.rel << " > " << tr.rel_bound;
        // Beyond what the inner precision alone reaches.
        EXPECT_LT(tr.rel, c.inner == Precision::S ? 1e-12 : 1e-20);
      }
    }
}

// The device's residual, update and right-hand side do the host's operations in the
// host's order (kernels/portable/solve/dw_refine.k): the same words bit for bit, after a
// few updates with random corrections, on a matrix with random values of every sign.
// x is compared whole; r through the right-hand side (DD's lo words vanish there, as
// they do in the refinement itself: hi + lo rounds to hi).
TEST(Solve, DeviceDoubleWordsEqualTheHostsBitForBit) {
  const auto seed = fresh_seed();
  const auto a = std::make_shared<const CsrMatrix>(dominant(1037, 5, seed, false));  // 1037: no multiple of a WG
  std::vector<double> b(static_cast<std::size_t>(a->rows));
  fill_random(b.data(), b.size(), seed, 21);
  int compared = 0;
  for (const auto& dev : test::solve_devices(true))
    // D inner with DF words: the right-hand side in double shows all 48 bits of r.
    for (const auto& [inner, outer] : {std::pair{Precision::S, Precision::DF}, std::pair{Precision::D, Precision::DF},
                                       std::pair{Precision::D, Precision::DD}}) {
      if (!dev->info().fp64 || dev->info().backend == BackendKind::Host) continue;
      SCOPED_TRACE(fmt::format("{} inner, {} words on {}, seed {}", name(inner), name(outer), dev->id(), seed));
      auto ops = make_variant_ops(*dev, a, inner, {}, Preconditioner::None);
      auto host = host_dw_residual(a, outer, *ops, b);
      auto device = make_dw_residual(a, outer, *ops, b);
      ASSERT_STREQ(device->where(), "device");
      auto rhs_h = ops->vector(), rhs_d = ops->vector(), d = ops->vector();
      for (int step = 0; step < 3; ++step) {
        const double nh = host->residual(), nd = device->residual();
        EXPECT_NEAR(nd, nh, 1e-13 * nh) << "step " << step;
        // The next right-hand side, poisoned first, in the inner precision.
        ops->upload(*rhs_d, std::vector<double>(b.size(), std::nan("")));
        host->right_hand_side(nh, *rhs_h);
        device->right_hand_side(nh, *rhs_d);
        EXPECT_EQ(ops->download(*rhs_h), ops->download(*rhs_d)) << "step " << step;
        // A random correction of a scale that leaves lo words in play.
        std::vector<double> corr(b.size());
        fill_random(corr.data(), corr.size(), seed, 30 + step);
        ops->upload(*d, corr);
        const double scale = std::ldexp(1.0, -20 * step) / 3;
        host->update(*d, scale);
        device->update(*d, scale);
      }
      const auto xh = host->solution(), xd = device->solution();
      EXPECT_EQ(xh.hi, xd.hi);
      EXPECT_EQ(xh.lo, xd.lo);
      EXPECT_TRUE(std::any_of(xd.lo.begin(), xd.lo.end(), [](double v) { return v != 0; }));
      ++compared;
    }
  EXPECT_GE(compared, 3) << "PoCL has binary64: every pair compared there";
}

TEST(Solve, JacobiRefusesAZeroDiagonal) {
  CsrMatrix a = generate_matrix("gen:poisson2d:n=5", 1);
  for (auto q = a.rowptr[7]; q < a.rowptr[8]; ++q)
    if (a.colidx[q] == 7) a.values[q] = 0;
  try {
    jacobi_inverse(a);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 8"), std::string::npos) << e.what();
  }
}

// The CLI: exit status and one clear message for each bad input.
class SolveCli : public ::testing::Test {
 protected:
  test::TempDir tmp;
  test::CmdResult solve(const std::string& args) {
    return test::run_hetbench("solve --out " + tmp.str() + " --seed 7 " + args);
  }
  std::string mtx(const std::string& name, const std::string& body) {
    const auto p = tmp.path() / name;
    test::write_text(p, "%%MatrixMarket matrix coordinate real general\n" + body);
    return p.string();
  }
};

TEST_F(SolveCli, ConvergesRecordsAndExitsZero) {
  auto r = solve("--method cg --matrix gen:poisson2d:n=24 --precision D --tol 1e-9");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("converged"), std::string::npos) << r.output;
  const auto recs = read_results(test::only_experiment(tmp.path()));
  ASSERT_EQ(recs.size(), 1u);
  const auto& rec = recs[0];
  EXPECT_EQ(rec["op"], "solve");
  EXPECT_TRUE(rec["converged"].get<bool>());
  EXPECT_TRUE(rec["true_residual"]["within"].get<bool>());
  EXPECT_GT(rec["residual_history"].size(), 2u);
  EXPECT_GT(rec["kernels_timed"]["seconds_per_iteration"]["spmv"].get<double>(), 0);
}

TEST_F(SolveCli, NonSquareMatrix) {
  auto r = solve("--matrix " + mtx("rect.mtx", "3 2 2\n1 1 1.5\n3 2 2.5\n"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("square matrix, this one is 3 x 2"), std::string::npos) << r.output;
}

TEST_F(SolveCli, ZeroDiagonalForJacobi) {
  auto r = solve("--method bicgstab --matrix " + mtx("zd.mtx", "3 3 4\n1 1 2\n2 1 1\n2 3 1\n3 3 2\n"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("row 2 (1-based) has no diagonal entry"), std::string::npos) << r.output;
}

TEST_F(SolveCli, NonSpdIsACgBreakdown) {
  // Symmetric and indefinite: diag(2, -3, 1) plus a coupling.
  auto r = solve("--precond none --matrix " + mtx("indef.mtx", "3 3 5\n1 1 2\n2 2 -3\n3 3 1\n1 2 0.5\n2 1 0.5\n"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("not positive definite"), std::string::npos) << r.output;
}

TEST_F(SolveCli, NonSymmetricRefusedByCg) {
  auto r = solve("--matrix " + mtx("ns.mtx", "2 2 3\n1 1 2\n1 2 1\n2 2 2\n"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("CG needs a symmetric matrix"), std::string::npos) << r.output;
}

TEST_F(SolveCli, ArnoldiMethodsRecordTheirCycleAndWindow) {
  auto r = solve("--method iom --restart 25 --truncate 3 --matrix gen:poisson2d:n=20 --tol 1e-9");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("hetbench iom D on host: converged"), std::string::npos) << r.output;
  auto recs = read_results(test::only_experiment(tmp.path()));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0]["method"], "iom");
  EXPECT_EQ(recs[0]["params"]["restart"], 25);
  EXPECT_EQ(recs[0]["params"]["truncate"], 3);
  EXPECT_TRUE(recs[0]["true_residual"]["within"].get<bool>());
  r = solve("--method iom --truncate 0 --matrix gen:poisson2d:n=8");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--truncate must be at least 1, not 0"), std::string::npos) << r.output;
  r = solve("--method fom --restart 0 --matrix gen:poisson2d:n=8");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--restart must be at least 1, not 0"), std::string::npos) << r.output;
  r = solve("--method fgmress --matrix gen:poisson2d:n=8");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("unknown --method 'fgmress'"), std::string::npos) << r.output;
}

TEST_F(SolveCli, StagnationStopsAtMaxIter) {
  auto r = solve("--method gmres --restart 2 --max-iter 6 --tol 1e-12 --matrix gen:poisson2d:n=30");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("max-iter after 6 iterations"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace hetbench
