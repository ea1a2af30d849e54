// A private folder for targets whose code under test reads or writes files: made once per
// process (in /dev/shm where there is one, so that the fsync of every results write costs
// nothing) and removed at exit.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace hetbench::fuzz {

inline const std::filesystem::path& scratch_dir() {
  // The exit handler reads a plain array: `dir` below is destroyed before it runs.
  static char made[4096];
  static const std::filesystem::path dir = [] {
    namespace fs = std::filesystem;
    std::string base = fs::is_directory("/dev/shm") ? "/dev/shm" : fs::temp_directory_path().string();
    std::string tmpl = base + "/hetbench-fuzz-XXXXXX";
    if (tmpl.size() >= sizeof made || !mkdtemp(tmpl.data())) std::abort();
    tmpl.copy(made, tmpl.size());
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(made, ec);
    });
    return fs::path(tmpl);
  }();
  return dir;
}

}  // namespace hetbench::fuzz
