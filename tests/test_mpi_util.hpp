// Running the hetbench program under mpirun in the tests (docs/mpi.md): as root (CI's
// containers) and with more ranks than cores, over shared memory without the single-copy
// mechanism that containers' ptrace rules forbid.
#pragma once

#include <string>

#include "test_util.hpp"

#ifdef HETBENCH_HAVE_MPI
#define HETBENCH_REQUIRE_MPI() (void)0
#else
#define HETBENCH_REQUIRE_MPI() GTEST_SKIP() << "built without MPI (libopenmpi-dev not found at build time)"
#define HETBENCH_MPIEXEC "mpirun"
#endif

namespace hetbench::test {

inline std::string mpirun_prefix(int np) {
  return std::string(HETBENCH_MPIEXEC) + " --allow-run-as-root --oversubscribe --bind-to none"
         " --mca btl self,vader --mca btl_vader_single_copy_mechanism none -np " + std::to_string(np) + " ";
}

inline CmdResult run_mpi(int np, const std::string& args) {
  return run_shell(mpirun_prefix(np) + HETBENCH_BINARY + " " + args);
}

}  // namespace hetbench::test
