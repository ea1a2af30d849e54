// Subcommands of the hetbench program, one file each. Each add_* registers its options
// and returns the action to run once the whole command line is parsed.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace hetbench::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;  // returns the exit status; throws hetbench::Error
};

Command add_devices(CLI::App& app);
Command add_list(CLI::App& app);
Command add_run(CLI::App& app, const std::string& command_line);
Command add_sweep(CLI::App& app, const std::string& command_line);
Command add_ceilings(CLI::App& app, const std::string& command_line);
Command add_export(CLI::App& app);  // export t4 (src/interop)
Command add_kernel(CLI::App& app);  // kernel export-t1 / import-t1 (src/interop)
int run_default_suite(const std::string& command_line);

}  // namespace hetbench::cli
