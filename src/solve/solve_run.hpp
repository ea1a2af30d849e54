// `hetbench solve`: the matrix and right-hand side, the solve on each device, its true
// residual and one record per device in an experiment folder (docs/solvers.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/precision.hpp"
#include "solve/krylov.hpp"
#include "solve/variant_ops.hpp"

namespace hetbench {

struct SolveSpec {
  KrylovOptions krylov;
  std::string matrix;                  // a Matrix Market file or gen:NAME:k=v,...
  std::string devices = "host";
  Precision precision = Precision::D;  // the Krylov solve's (the inner one's with refinement)
  Preconditioner precond = Preconditioner::Jacobi;
  SolverVariants variants;
  std::optional<Precision> refine;     // DF or DD: iterative refinement
  double inner_tol = 0;                // refinement's inner reduction; 0: per step (RefineOptions::inner_floor)
  std::string baseline;                // "", "eigen" (host), "vendor" (cuSPARSE + cuBLAS on CUDA)
  std::uint64_t seed = 0;
  std::string out_root = "hetbench-results", name = "solve", command_line;
  bool record = true;                  // false: --no-record, nothing written
};

// Solves on every device; returns the exit status: 0 converged within the bound, 1 a
// solve stopped at --max-iter (or stagnated) or its true residual exceeds the bound.
// Bad input and breakdowns throw Error (exit 2) after the record is written.
int run_solve(const SolveSpec& s);

// What `dist cg|bicgstab` (src/mpi) shares with solve: the symmetry check CG needs (throws
// Error naming `token` and the entry), the recorded residual history (at most 5000
// entries) and the per-iteration kernel times.
void require_symmetric(const CsrMatrix& a, const std::string& token);
nlohmann::json thinned(const std::vector<double>& history);
nlohmann::json kernel_json(const KernelTimes& t, long iterations);

}  // namespace hetbench
