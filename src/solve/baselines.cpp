#include "solve/baselines.hpp"

#include <chrono>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "solve/true_residual.hpp"

#if HETBENCH_HAVE_EIGEN
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>
#endif

namespace hetbench {

std::unique_ptr<SolverOps> make_vendor_ops(Device& dev, std::shared_ptr<const CsrMatrix> a, Precision p,
                                           Preconditioner m) {
  auto make = vendor_solver_ops(dev.info().backend);
  if (!make)
    throw Error(fmt::format("--baseline vendor: {} has no vendor-library operators (CUDA's cuSPARSE + cuBLAS only)",
                            dev.id()));
  return make(dev, std::move(a), p, m);
}

#if HETBENCH_HAVE_EIGEN
namespace {

template <class T, class Solver>
nlohmann::json eigen_run(const CsrMatrix& a, const std::vector<double>& b, const SolveSpec& s, int& status) {
  using Mat = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;
  std::vector<T> vals(a.values.begin(), a.values.end());
  const Eigen::Map<const Mat> map(a.rows, a.cols, a.nnz(), a.rowptr.data(), a.colidx.data(), vals.data());
  const Mat m = map;
  Eigen::Matrix<T, Eigen::Dynamic, 1> bv(a.rows);
  for (int64_t i = 0; i < a.rows; ++i) bv[i] = static_cast<T>(b[i]);
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  Solver solver;
  solver.setTolerance(static_cast<typename Solver::RealScalar>(s.krylov.tol));
  solver.setMaxIterations(static_cast<Eigen::Index>(s.krylov.max_iter));
  solver.compute(m);
  Eigen::Matrix<T, Eigen::Dynamic, 1> x = solver.solve(bv);
  const double wall = std::chrono::duration<double>(clock::now() - t0).count();
  DwVector xd{std::vector<double>(x.data(), x.data() + x.size()), {}};
  const auto p = std::is_same_v<T, float> ? Precision::S : Precision::D;
  const auto iters = static_cast<long>(solver.iterations());
  const auto tr = krylov_true_residual(a, b, xd, p, s.krylov.tol, iters);
  const bool ok = solver.info() == Eigen::Success;
  nlohmann::json r = {{"iterations", iters},
                      {"converged", ok},
                      {"stop", ok ? "converged" : (solver.info() == Eigen::NoConvergence ? "max-iter" : "breakdown")},
                      {"eigen_error", static_cast<double>(solver.error())},
                      {"seconds", wall},
                      {"seconds_per_iteration", wall / static_cast<double>(std::max(1L, iters))},
                      {"kernel_ids", {fmt::format("Eigen {}.{}.{} {}", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
                                                  EIGEN_MINOR_VERSION,
                                                  s.krylov.method == KrylovMethod::CG ? "ConjugateGradient"
                                                                                       : "BiCGSTAB")}},
                      {"true_residual",
                       {{"norm", tr.norm}, {"relative", tr.rel}, {"bound", tr.rel_bound}, {"within", tr.within()},
                        {"bound_text", tr.bound}}}};
  status = !ok ? (solver.info() == Eigen::NoConvergence ? 1 : 2) : (tr.within() ? 0 : 1);
  r["status"] = status == 0 ? "ok" : (status == 2 ? "error" : "failed");
  return r;
}

template <class T>
nlohmann::json eigen_method(const CsrMatrix& a, const std::vector<double>& b, const SolveSpec& s, int& status) {
  using Mat = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;
  const bool jacobi = s.precond == Preconditioner::Jacobi;
  // Lower|Upper: the whole matrix is stored, and Eigen's product then runs multi-threaded.
  if (s.krylov.method == KrylovMethod::CG) {
    if (jacobi)
      return eigen_run<T, Eigen::ConjugateGradient<Mat, Eigen::Lower | Eigen::Upper, Eigen::DiagonalPreconditioner<T>>>(
          a, b, s, status);
    return eigen_run<T, Eigen::ConjugateGradient<Mat, Eigen::Lower | Eigen::Upper, Eigen::IdentityPreconditioner>>(
        a, b, s, status);
  }
  if (jacobi) return eigen_run<T, Eigen::BiCGSTAB<Mat, Eigen::DiagonalPreconditioner<T>>>(a, b, s, status);
  return eigen_run<T, Eigen::BiCGSTAB<Mat, Eigen::IdentityPreconditioner>>(a, b, s, status);
}

}  // namespace
#endif

nlohmann::json eigen_solve(const CsrMatrix& a, const std::vector<double>& b, const SolveSpec& s, int& status) {
#if HETBENCH_HAVE_EIGEN
  if (restarted(s.krylov.method))
    throw Error(fmt::format("--baseline eigen: Eigen 3's supported modules have no {} (cg or bicgstab)",
                            to_string(s.krylov.method)));
  if (s.refine) throw Error("--baseline eigen does not refine: leave out --refine");
  if (s.precond == Preconditioner::Ilu0)
    throw Error("--baseline eigen has no ILU(0) (its IncompleteLUT is a threshold ILU): use jacobi or none");
  if (s.precision == Precision::S) return eigen_method<float>(a, b, s, status);
  if (s.precision == Precision::D) return eigen_method<double>(a, b, s, status);
  throw Error(fmt::format("--baseline eigen runs in S or D, not {}", name(s.precision)));
#else
  (void)a, (void)b, (void)s, (void)status;
  throw Error("--baseline eigen: Eigen 3 was not found at build time (install libeigen3-dev)");
#endif
}

}  // namespace hetbench
