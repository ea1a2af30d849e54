// `hetbench solve`: CG, BiCGStab, GMRES(m), FGMRES(m), FOM(m) and IOM(k, m) from the op kernels (src/solve, docs/solvers.md).
#include <memory>

#include <fmt/format.h>

#include "cli/cmd_solve.hpp"
#include "hetbench/error.hpp"
#include "solve/solve_run.hpp"
#include "util/random.hpp"

namespace hetbench::cli {

Command add_solve(CLI::App& app, const std::string& command_line) {
  auto* sub = app.add_subcommand("solve", "solve A x = b by CG, BiCGStab, GMRES, FGMRES, FOM or IOM composed from the op kernels");
  struct Opts {
    SolveSpec s;
    std::string method = "cg", precision = "D", precond = "jacobi", refine;
  };
  auto o = std::make_shared<Opts>();
  o->s.command_line = command_line;
  sub->add_option("--method", o->method, "cg, bicgstab, gmres, fgmres, fom or iom")->capture_default_str();
  sub->add_option("--matrix", o->s.matrix, "a Matrix Market file or a generator, gen:NAME:k=v,...")->required();
  sub->add_option("--device", o->s.devices, "host, opencl:P:D, cuda:N, a unique name substring, or all")
      ->capture_default_str();
  sub->add_option("--precision", o->precision, "S or D: the Krylov solve's (the inner solve's with --refine)")
      ->capture_default_str();
  sub->add_option("--refine", o->refine, "DF or DD: iterative refinement, residuals and updates in double words");
  sub->add_option("--inner-tol", o->s.inner_tol,
                  "--refine: each inner solve's reduction (default: per step, what the outer tolerance still needs, "
                  "at least 1e-4 in S, 1e-10 in D)");
  sub->add_option("--tol", o->s.krylov.tol, "stop at ||r|| <= tol ||b||")->capture_default_str();
  sub->add_option("--max-iter", o->s.krylov.max_iter, "iterations (gmres, fgmres, fom, iom: inner steps over all restarts)")
      ->capture_default_str();
  sub->add_option("--restart", o->s.krylov.restart, "gmres, fgmres, fom, iom: the cycle length m")
      ->capture_default_str();
  sub->add_option("--truncate", o->s.krylov.truncate,
                  "iom: each new basis vector is orthogonalized against the last k (IOM(k))")
      ->capture_default_str();
  sub->add_option("--check-every", o->s.krylov.check_every,
                  "CG: iterations issued between two read-backs of the convergence test")
      ->capture_default_str();
  sub->add_option("--precond", o->precond, "jacobi, ilu0 (CUDA: cuSPARSE) or none")->capture_default_str();
  sub->add_option("--spmv-variant", o->s.variants.spmv, "the spmv variant (default: the backend's, docs/solvers.md)");
  sub->add_option("--dot-variant", o->s.variants.dot, "the dot variant");
  sub->add_option("--axpy-variant", o->s.variants.axpy, "the axpy variant");
  sub->add_option("--baseline", o->s.baseline, "eigen (host: Eigen's CG/BiCGSTAB) or vendor (CUDA: cuSPARSE + cuBLAS)");
  sub->add_option("--out", o->s.out_root, "results root folder (an experiment folder is created inside)")
      ->capture_default_str();
  sub->add_option("--name", o->s.name, "experiment name (folder suffix)")->capture_default_str();
  sub->add_option("--seed", o->s.seed, "seed of the right-hand side and generated matrices (default: fresh)");
  sub->add_flag("--no-record", [o](std::int64_t) { o->s.record = false; }, "write no experiment folder");
  return {sub, [o, sub] {
            auto& s = o->s;
            if (!sub->count("--seed")) s.seed = fresh_seed();
            s.krylov.method = parse_method(o->method);
            s.precision = parse_precision(o->precision);
            if (!o->refine.empty()) s.refine = parse_precision(o->refine);
            s.precond = parse_preconditioner(o->precond);
            if (s.krylov.max_iter < 1) throw Error(fmt::format("--max-iter must be at least 1, not {}", s.krylov.max_iter));
            return run_solve(s);
          }};
}

}  // namespace hetbench::cli
