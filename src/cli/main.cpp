// hetbench: kernels of linear algebra measured, validated and recorded on every device.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "util/build_info.hpp"

#include "cli/cmd_solve.hpp"
#include "cli/commands.hpp"
#include "engine/measure/clock_lock.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"

namespace {

// HETBENCH_TEST_SLOW_ERRORS=MS (a test hook): wait MS before the error line, as a loaded
// machine might. Under mpirun the line must still appear: no other rank may end the job
// first (mpi::kAgreedFailureStatusOffRoot).
void test_hook_slow_errors() {
  if (const char* v = std::getenv("HETBENCH_TEST_SLOW_ERRORS"))
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(v)));
}

}  // namespace

int main(int argc, char** argv) {
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  CLI::App app{"hetbench: AXPY, DOT, SpMV and GEMM measured, validated and recorded on host, OpenCL and CUDA devices.\n"
               "Without a subcommand it runs the default suite on every device present."};
  app.set_version_flag("--version", std::string(HETBENCH_VERSION) + " (" + hetbench::git_commit() + ")");
  std::vector<std::string> kernel_paths;
  app.add_option("--kernels", kernel_paths, "extra kernel metadata file or folder (repeatable)");
  app.fallthrough();
  std::vector<hetbench::cli::Command> cmds{hetbench::cli::add_devices(app), hetbench::cli::add_list(app),
                                           hetbench::cli::add_run(app, command_line),
                                           hetbench::cli::add_sweep(app, command_line),
                                           hetbench::cli::add_check(app, command_line),
                                           hetbench::cli::add_ceilings(app, command_line),
                                           hetbench::cli::add_db(app),
                                           hetbench::cli::add_tune(app, command_line),
                                           hetbench::cli::add_export(app), hetbench::cli::add_kernel(app),
                                           hetbench::cli::add_compare(app),
                                           hetbench::cli::add_replay(app, command_line),
                                           hetbench::cli::add_worker(app),
                                           hetbench::cli::add_report(app), hetbench::cli::add_dist(app, command_line),
                                           hetbench::cli::add_solve(app, command_line),

                                           hetbench::cli::add_matrix(app), hetbench::cli::add_store(app)};
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    // Clocks a killed hetbench left locked (--lock-clocks) go back before anything else.
    for (const auto& line : hetbench::restore_left_clock_locks(nullptr)) fmt::print(stderr, "hetbench: {}\n", line);
    for (const auto& p : kernel_paths) hetbench::add_kernel_path(p);
    for (const auto& c : cmds)
      if (c.app->parsed()) return c.run();
    return hetbench::cli::run_default_suite(command_line);
  } catch (const hetbench::Error& e) {
    test_hook_slow_errors();
    fmt::print(stderr, "hetbench: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "hetbench: internal error: {}\n", e.what());
    return 3;
  }
}
