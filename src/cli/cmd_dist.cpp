// hetbench dist OP: a distributed op over the ranks of `mpirun -np N` (docs/mpi.md).
#include <cstdlib>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "hetbench/error.hpp"
#include "util/random.hpp"
#ifdef HETBENCH_HAVE_MPI
#include "mpi/dist_ops.hpp"
#endif

namespace hetbench::cli {

Command add_dist(CLI::App& app) {
  auto* sub = app.add_subcommand("dist", "under mpirun: DOT, AXPY or CSR SpMV over block-distributed operands, "
                                         "validated and timed (docs/mpi.md)");
  struct Opts {
    std::string op, precision = "D", device = "host", variant, matrix, size;
    int reps = 5;
    std::uint64_t seed = 0;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("op", o->op, "dot, axpy or spmv")->required()->check(CLI::IsMember({"dot", "axpy", "spmv"}));
  sub->add_option("--size", o->size, "dot, axpy: the global vector length");
  sub->add_option("--matrix", o->matrix, "spmv: a Matrix Market file or gen:NAME:k=v,...");
  sub->add_option("--precision", o->precision, "S or D")->capture_default_str();
  sub->add_option("--device", o->device,
                  "the devices ranks choose from: a rank takes the (local rank mod count)-th")->capture_default_str();
  sub->add_option("--variant", o->variant, "the op variant each rank runs (default: the first that runs on its device)");
  sub->add_option("--reps", o->reps, "timed repetitions")->capture_default_str();
  sub->add_option("--seed", o->seed, "seed of the random operands (default: a fresh one, reported)");
  return {sub, [o, sub] {
            require_mpi("dist");
#ifdef HETBENCH_HAVE_MPI
            mpi::DistOptions d;
            d.op = o->op;
            d.matrix = o->matrix;
            d.prec = parse_precision(o->precision);
            d.device = o->device;
            d.variant = o->variant;
            d.reps = o->reps;
            // Every rank needs the same seed: a fresh one would differ per rank.
            if (!sub->count("--seed") && launcher_ranks(nullptr) > 1)
              throw Error("dist: give --seed under mpirun (each rank would draw another)");
            d.seed = sub->count("--seed") ? o->seed : fresh_seed();
            if (d.op == "spmv" ? !o->size.empty() : !o->matrix.empty())
              throw Error(fmt::format("dist {}: {}", d.op, d.op == "spmv" ? "give --matrix, not --size" : "give --size, not --matrix"));
            if (d.op != "spmv") {
              char* end = nullptr;
              d.n = std::strtoll(o->size.c_str(), &end, 10);
              if (o->size.empty() || *end || d.n < 1)
                throw Error(fmt::format("dist {}: --size '{}': expected a length >= 1", d.op, o->size));
            }
            nlohmann::json j;
            try {
              j = mpi::run_distributed(d);
            } catch (const mpi::AgreedError& e) {
              if (std::getenv("OMPI_COMM_WORLD_RANK") && std::string(std::getenv("OMPI_COMM_WORLD_RANK")) != "0") return 2;
              throw Error(e.what());
            }
            if (j.is_null()) return 0;
            fmt::print("{}\n", j.dump());  // one line: a single write, not interleaved with other ranks' stderr
            std::fflush(stdout);
            const bool ok = j["validation"]["passed"].get<bool>();
            fmt::print(stderr, "hetbench: dist {} over {} ranks: validation {} (max error/bound {:.3g}), median {:.3g} s\n",
                       d.op, j["ranks"].get<int>(), ok ? "passed" : "FAILED", j["validation"]["max_ratio"].get<double>(),
                       j["timing"]["median_s"].get<double>());
            return ok ? 0 : 1;
#else
            return 2;
#endif
          }};
}

}  // namespace hetbench::cli
