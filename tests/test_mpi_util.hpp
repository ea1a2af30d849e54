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

// Each test process gives its mpirun a session folder of its own: two mpiruns that start
// together (ctest -j2) race to create the shared /tmp/ompi.HOST.UID, and Open MPI 4.1 lets
// the loser fail in orte_init with "File exists" (seen once in CI). The folder goes at exit.
inline std::string mpi_session_base() {
  static const TempDir dir;
  return dir.str();
}

// The ranks run without LeakSanitizer in the sanitized build: Open MPI's runtime keeps
// allocations past MPI_Finalize from components it dlopen()s and unloads, whose frames
// show as "<unknown module>" that no suppression can name. AddressSanitizer's other
// checks stay on in the ranks, and the leak check still covers the same code in the
// single-process tests. Other builds ignore ASAN_OPTIONS.
// The host variants' OpenMP threads sleep rather than spin between kernels: ranks that
// oversubscribe the cores would spin each other out of their time slices, and a distributed
// solve's many small kernels would each wait a scheduler quantum.
inline std::string mpirun_prefix(int np) {
  return "OMP_WAIT_POLICY=passive ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 " +
         std::string(HETBENCH_MPIEXEC) + " -x OMP_WAIT_POLICY --allow-run-as-root --oversubscribe --bind-to none"
         " --mca btl self,vader --mca btl_vader_single_copy_mechanism none --mca orte_tmpdir_base " +
         mpi_session_base() + " -np " + std::to_string(np) + " ";
}

// `env`: VAR=VALUE words for mpirun, whose ranks on this host inherit them.
inline CmdResult run_mpi(int np, const std::string& args, const std::string& env = "") {
  return run_shell(env + (env.empty() ? "" : " ") + mpirun_prefix(np) + HETBENCH_BINARY + " " + args);
}

}  // namespace hetbench::test
