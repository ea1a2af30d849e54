// A shell command with its output captured, for the interop tests that run python3
// (schema validation, evaluating translated expressions).
#pragma once

#include "test_util.hpp"

namespace hetbench::test {

inline CmdResult run_command(const std::string& command) {
  TempDir tmp;
  const auto log = tmp.path() / "out.txt";
  const int raw = std::system((command + " > " + log.string() + " 2>&1").c_str());
  std::ifstream f(log);
  std::stringstream ss;
  ss << f.rdbuf();
  return CmdResult{WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), ss.str()};
}

// The Python of build/pyenv (scripts/setup-python: Kernel Tuner, PyOpenCL and the
// autotuning methodology package from PyPI), or empty where it was not set up.
inline std::string pyenv_python() {
  const std::string py = source_dir() + "/build/pyenv/bin/python";
  return std::filesystem::exists(py) ? py : "";
}

}  // namespace hetbench::test
