// Every input a fuzzer once crashed on (fuzz/regressions/<target>/), replayed through the
// same target body in the ordinary build: the code under test must accept it or refuse
// it with hetbench::Error, and nothing else. The seed corpora run too, so that a target
// body that breaks on good input is caught here rather than only under libFuzzer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "targets/targets.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

// Returns the number of inputs replayed from fuzz/<kind>/<target>/.
int replay(const char* kind) {
  int n = 0;
  for (const auto& t : hetbench::fuzz::kTargets) {
    const fs::path dir = fs::path(HETBENCH_SOURCE_DIR) / "fuzz" / kind / t.name;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      SCOPED_TRACE(e.path().string());
      EXPECT_NO_THROW(t.run(slurp(e.path())));
      ++n;
    }
  }
  return n;
}

}  // namespace

TEST(FuzzRegressions, CrashInputsAreRefusedCleanly) { EXPECT_GT(replay("regressions"), 0); }

TEST(FuzzRegressions, SeedCorporaRunCleanly) { EXPECT_GT(replay("corpus"), 30); }
