// CG, BiCGStab and the restarted Arnoldi family (GMRES(m), flexible GMRES, FOM and IOM),
// written once over SolverOps, so that every backend (and distributed operators) runs the
// same algorithm. docs/solvers.md.
#pragma once

#include <string>
#include <vector>

#include "hetbench/solver_ops.hpp"

namespace hetbench {

enum class KrylovMethod { CG, BiCGStab, GMRES, FGMRES, FOM, IOM };
// cg, bicgstab, gmres, fgmres, fom, iom; throws Error
KrylovMethod parse_method(const std::string& s);
std::string to_string(KrylovMethod m);
// The methods built on Arnoldi cycles of --restart steps.
bool restarted(KrylovMethod m);

struct KrylovOptions {
  KrylovMethod method = KrylovMethod::CG;
  double tol = 1e-8;     // stop at ||r|| <= tol * ||b|| (the recursively updated r)
  long max_iter = 1000;  // iterations (the Arnoldi methods: inner steps, over all restarts)
  int restart = 30;      // the cycle length m of GMRES(m), FGMRES(m), FOM(m), IOM(k, m)
  int truncate = 5;      // IOM(k): each new basis vector orthogonalized against the last k
  // CG: iterations issued between two read-backs of the convergence test (a device keeps
  // its scalars and waits once per window; docs/solvers.md "Device scalars").
  long check_every = 16;
};

// Why a solve stopped. Breakdown and max-iter are the caller's to report (exit status 2
// and 1 in the CLI: docs/solvers.md).
enum class StopWhy { Converged, MaxIter, Breakdown };
std::string to_string(StopWhy w);

struct KrylovResult {
  long iterations = 0;
  StopWhy why = StopWhy::MaxIter;
  std::string detail;            // the breakdown in words
  double b_norm = 0;
  std::vector<double> history;   // ||r_k|| / ||b||, k = 0 (initial) .. iterations
  // Iterations issued to the device (CG: up to check_every − 1 past `iterations`, frozen:
  // they leave x and r unchanged); equal to `iterations` where every iteration waits.
  long issued = 0;
};

// Solves A x = b; x holds the initial guess and receives the solution.
KrylovResult krylov_solve(SolverOps& ops, SolverVector& b, SolverVector& x, const KrylovOptions& o);

}  // namespace hetbench
