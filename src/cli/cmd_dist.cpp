// hetbench dist OP: a distributed op or Krylov solve over the ranks of `mpirun -np N`
// (docs/mpi.md). Rank 0 writes an experiment folder and prints one line per run (with
// --json, the summary as one JSON line on stdout as well).
#include <cstdlib>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "hetbench/error.hpp"
#include "util/random.hpp"
#ifdef HETBENCH_HAVE_MPI
#include "mpi/dist_ops.hpp"
#include "mpi/world.hpp"
#endif

namespace hetbench::cli {

namespace {

#ifdef HETBENCH_HAVE_MPI
// The solve's line, as `hetbench solve` prints it, plus the ranks and the transport.
int report_solve(const nlohmann::json& j) {
  const auto& k = j["kernels_timed"]["seconds_per_iteration"];
  fmt::print("dist {} {} over {} ranks: {} after {} iterations, {:.3e} s/iteration (spmv {:.2e}, halo {:.2e}, "
             "dot+allreduce {:.2e}, axpy {:.2e}, precond {:.2e}), true ||b-Ax||/||b|| = {:.3e} (bound {:.3e})\n",
             j["method"].get<std::string>(), j["precision"].get<std::string>(), j["ranks"].get<int>(),
             j["stop"].get<std::string>(), j["iterations"].get<long>(), j["seconds_per_iteration"].get<double>(),
             k["spmv"].get<double>(), k["halo"].get<double>(), k["dot"].get<double>(), k["axpy"].get<double>(),
             k["precond"].get<double>(), j["true_residual"]["relative"].get<double>(),
             j["true_residual"]["bound"].get<double>());
  fmt::print("  transport: {}{}\n", j["transport"].get<std::string>(),
             j.contains("transport_why_not_nccl") ? " (not NCCL: " + j["transport_why_not_nccl"].get<std::string>() + ")" : "");
  if (j.contains("stop_detail")) fmt::print("  {}\n", j["stop_detail"].get<std::string>());
  if (j["exit"] == 2)
    throw Error(fmt::format("dist {}: {}", j["method"].get<std::string>(), j["stop_detail"].get<std::string>()));
  return j["exit"].get<int>();
}
#endif

struct DistArgs {
  std::string op, precision = "D", device = "host", variant, matrix, size, precond = "jacobi";
#ifdef HETBENCH_HAVE_MPI
  mpi::DistOptions d;
#endif
  int reps = 5;
  std::uint64_t seed = 0;
};

#ifdef HETBENCH_HAVE_MPI
// The command line into o.d, checked: a throw here is the same on every rank.
void fill_options(DistArgs& o, const CLI::App& sub, const std::string& command_line) {
  auto& d = o.d;
  d.op = o.op;
  d.matrix = o.matrix;
  d.prec = parse_precision(o.precision);
  d.device = o.device;
  d.variant = o.variant;
  d.reps = o.reps;
  d.command_line = command_line;
  // Every rank needs the same seed: a fresh one would differ per rank.
  if (!sub.count("--seed") && launcher_ranks(nullptr) > 1)
    throw Error("dist: give --seed under mpirun (each rank would draw another)");
  d.seed = sub.count("--seed") ? o.seed : fresh_seed();
  const bool needs_matrix = d.op != "dot" && d.op != "axpy";
  if (needs_matrix ? !o.size.empty() : !o.matrix.empty())
    throw Error(fmt::format("dist {}: {}", d.op, needs_matrix ? "give --matrix, not --size" : "give --size, not --matrix"));
  if (!needs_matrix) {
    char* end = nullptr;
    d.n = std::strtoll(o.size.c_str(), &end, 10);
    if (o.size.empty() || *end || d.n < 1)
      throw Error(fmt::format("dist {}: --size '{}': expected a length >= 1", d.op, o.size));
  }
  if (o.precond != "jacobi" && o.precond != "none")
    throw Error(fmt::format("unknown --precond '{}': expected jacobi or none", o.precond));
  d.jacobi = o.precond == "jacobi";
  if (d.max_iter < 1) throw Error(fmt::format("--max-iter must be at least 1, not {}", d.max_iter));
  if (!(d.tol > 0)) throw Error(fmt::format("--tol must be positive, not {}", d.tol));
}
#endif

}  // namespace

Command add_dist(CLI::App& app, const std::string& command_line) {
  auto* sub = app.add_subcommand("dist", "under mpirun: DOT, AXPY, CSR SpMV over block-distributed operands, or CG and "
                                         "BiCGStab on a row-block distributed matrix, validated and timed (docs/mpi.md)");
  auto o = std::make_shared<DistArgs>();
  sub->add_option("op", o->op, "dot, axpy, spmv, cg or bicgstab")
      ->required()
      ->check(CLI::IsMember({"dot", "axpy", "spmv", "cg", "bicgstab"}));
  sub->add_option("--size", o->size, "dot, axpy: the global vector length");
  sub->add_option("--matrix", o->matrix, "spmv, cg, bicgstab: a Matrix Market file or gen:NAME:k=v,...");
  sub->add_option("--precision", o->precision, "S or D")->capture_default_str();
  sub->add_option("--device", o->device,
                  "the devices ranks choose from: a rank takes the (local rank mod count)-th")->capture_default_str();
  sub->add_option("--variant", o->variant, "the op variant each rank runs (default: the first that runs on its device)");
  sub->add_option("--reps", o->reps, "timed repetitions (dot, axpy, spmv)")->capture_default_str();
  sub->add_option("--seed", o->seed, "seed of the random operands (default: a fresh one, reported)");
#ifdef HETBENCH_HAVE_MPI
  auto& d = o->d;
  sub->add_option("--tol", d.tol, "cg, bicgstab: stop at ||r|| <= tol ||b||")->capture_default_str();
  sub->add_option("--max-iter", d.max_iter, "cg, bicgstab: iterations")->capture_default_str();
  sub->add_option("--precond", o->precond, "cg, bicgstab: jacobi or none")->capture_default_str();
  sub->add_option("--spmv-variant", d.spmv_variant, "cg, bicgstab: the spmv variant (docs/solvers.md)");
  sub->add_option("--dot-variant", d.dot_variant, "cg, bicgstab: the dot variant");
  sub->add_option("--axpy-variant", d.axpy_variant, "cg, bicgstab: the axpy variant");
  sub->add_option("--transport", d.transport, "cg, bicgstab: auto (NCCL for CUDA buffers when found), mpi or nccl")
      ->capture_default_str();
  sub->add_option("--solution", d.solution, "cg, bicgstab: rank 0 writes x to this file, one value a line");
  sub->add_option("--out", d.out_root, "results root folder (rank 0 creates an experiment folder inside)")
      ->capture_default_str();
  sub->add_option("--name", d.name, "experiment name (folder suffix; default dist-OP)");
  sub->add_flag("--no-record", [o](std::int64_t) { o->d.record = false; }, "write no experiment folder");
  sub->add_flag("--json", o->d.json, "also print the summary as one JSON line on stdout (rank 0)");
#endif
  return {sub, [o, sub, command_line] {
            require_mpi("dist");
#ifdef HETBENCH_HAVE_MPI
            auto& d = o->d;
            try {
              fill_options(*o, *sub, command_line);
            } catch (const Error&) {
              // Every rank read the same command line: rank 0 alone says what is wrong.
              if (launcher_rank() > 0) return mpi::kAgreedFailureStatusOffRoot;
              throw;
            }
            nlohmann::json j;
            try {
              j = mpi::run_distributed(d);
            } catch (const mpi::AgreedError& e) {
              if (launcher_rank() > 0) return mpi::kAgreedFailureStatusOffRoot;
              throw Error(e.what());
            }
            if (j.is_null()) return 0;
            if (d.json) {
              fmt::print("{}\n", j.dump());  // one line: a single write, not interleaved with other ranks' stderr
              std::fflush(stdout);
            }
            if (j.contains("recorded_in")) fmt::print("recorded in {}\n", j["recorded_in"].get<std::string>());
            if (mpi::is_solver(d.op)) return report_solve(j);
            const bool ok = j["validation"]["passed"].get<bool>();
            fmt::print(stderr, "hetbench: dist {} over {} ranks: validation {} (max error/bound {:.3g}), median {:.3g} s\n",
                       d.op, j["ranks"].get<int>(), ok ? "passed" : "FAILED", j["validation"]["max_ratio"].get<double>(),
                       j["timing"]["median_s"].get<double>());
            return ok ? 0 : 1;
#else
            (void)o;
            (void)sub;
            (void)command_line;
            return 2;
#endif
          }};
}

}  // namespace hetbench::cli
