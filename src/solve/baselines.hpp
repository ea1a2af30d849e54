// The baselines of `hetbench solve --baseline`: Eigen 3's ConjugateGradient and BiCGSTAB
// on the host, and the same Krylov code over vendor-library operators (cuSPARSE SpMV,
// cuBLAS dot and axpy) where a backend registered them.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/solver_ops.hpp"
#include "solve/solve_run.hpp"

namespace hetbench {

// Throws Error when the device's backend registered no vendor operators.
std::unique_ptr<SolverOps> make_vendor_ops(Device& dev, std::shared_ptr<const CsrMatrix> a, Precision p,
                                           Preconditioner m);

// One Eigen solve of A·x = b in S or D: the record's keys as solve_run writes them
// (Eigen reports no residual history and no per-kernel times); status as run_solve's.
// Throws Error for GMRES (not in Eigen's supported modules) and for precisions other than S, D.
nlohmann::json eigen_solve(const CsrMatrix& a, const std::vector<double>& b, const SolveSpec& s, int& status);

}  // namespace hetbench
