// Where the cli meets the MPI layer (src/mpi, docs/mpi.md): a process started by mpirun
// or srun as one of several ranks shards its sweep; a build without MPI says so in one line.
#include <cstdlib>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "engine/runner.hpp"
#include "hetbench/error.hpp"
#include "mpi/world.hpp"
#ifdef HETBENCH_HAVE_MPI
#include "mpi/sharded_sweep.hpp"
#endif

namespace hetbench::cli {

int launcher_ranks(std::string* var) {
  // Open MPI's mpirun, then the PMI of MPICH's hydra and of srun.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* s = std::getenv(v)) {
      if (var) *var = fmt::format("{}={}", v, s);
      return std::atoi(s);
    }
  return 1;
}

int launcher_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

void require_mpi(const std::string& what) {
#ifndef HETBENCH_HAVE_MPI
  std::string var;
  const int n = launcher_ranks(&var);
  // One line from rank 0, not one per rank.
  if (launcher_rank() > 0) std::exit(mpi::kAgreedFailureStatusOffRoot);
  throw Error(fmt::format("{}: this hetbench was built without MPI (MPI not found at build time, or "
                          "-DHETBENCH_MPI=OFF){}; install libopenmpi-dev and rebuild (docs/mpi.md)",
                          what, n > 1 ? fmt::format(", yet it runs as one of {} ranks ({})", n, var) : ""));
#else
  (void)what;
#endif
}

int sweep_experiment(const Experiment& e, const ResumeOptions* resume) {
  if (launcher_ranks(nullptr) <= 1) return run_experiment(e, nullptr, resume);
  require_mpi("sweep");
#ifdef HETBENCH_HAVE_MPI
  return mpi::run_sharded_experiment(e, resume);
#else
  return 2;
#endif
}

}  // namespace hetbench::cli
