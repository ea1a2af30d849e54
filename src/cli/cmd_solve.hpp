// `hetbench solve` (src/solve, docs/solvers.md); apart from commands.hpp so that adding it
// recompiles only main.cpp.
#pragma once

#include "cli/commands.hpp"

namespace hetbench::cli {
Command add_solve(CLI::App& app, const std::string& command_line);
}
