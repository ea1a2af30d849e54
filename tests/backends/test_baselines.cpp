// Vendor baselines: OpenBLAS on the host and CLBlast on OpenCL validate like any other
// variant; baselines left out of the build are listed with the reason.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/record/results.hpp"
#include "engine/runner.hpp"
#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"

namespace hetbench {
namespace {

namespace fs = std::filesystem;

class BaselinesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::random_device rd;
    root_ = fs::temp_directory_path() / fmt::format("hetbench-baselines-{:08x}", rd());
    fs::create_directories(root_ / "cache");
    setenv("HETBENCH_CACHE_DIR", (root_ / "cache").c_str(), 1);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // Every precision and size of one variant on one device; all points must pass.
  static void validates(const std::string& op, const std::string& variant, const std::string& device) {
    RunSpec r;
    r.op = op;
    r.variants = {variant};
    r.devices = device;
    r.sizes = {"1,7,1000,4097,1048579"};  // 2^20 + 3
    r.reps = 1;
    r.warmup = 0;
    int status = -1;
    auto recs = test::run_points(r, &status);
    EXPECT_EQ(status, 0);
    ASSERT_EQ(recs.size(), 10u);  // 5 sizes x S, D
    for (const auto& rec : recs) {
      EXPECT_EQ(rec.value("status", ""), "ok") << rec.dump();
      EXPECT_EQ(rec.value("kind", ""), "library");
      EXPECT_LE(rec["validation"]["max_err_over_bound"].get<double>(), 1.0);
    }
  }

  static inline fs::path root_;
};

bool registered(const std::string& id) {
  for (const auto& v : all_variants())
    if (v->id() == id) return true;
  return false;
}

bool listed_missing(const std::string& id) {
  for (const auto& [m, why] : missing_baselines())
    if (m == id) return !why.empty();
  return false;
}

TEST_F(BaselinesTest, OpenblasValidatesOnHost) {
#ifndef HETBENCH_HAVE_OPENBLAS
  GTEST_SKIP() << "built without OpenBLAS";
#else
  validates("axpy", "openblas", "host");
  validates("dot", "openblas", "host");
#endif
}

TEST_F(BaselinesTest, ClblastValidatesOnOpencl) {
#ifndef HETBENCH_HAVE_CLBLAST
  GTEST_SKIP() << "built without CLBlast";
#else
  if (!test::have_opencl()) GTEST_SKIP() << "no OpenCL device";
  validates("axpy", "clblast", "opencl:0:0");
  validates("dot", "clblast", "opencl:0:0");
#endif
}

// Each baseline is either a variant or a missing entry with its reason, and `hetbench
// list` shows the missing ones.
TEST_F(BaselinesTest, MissingBaselinesAreListed) {
  for (const char* id : {"host/axpy/openblas", "host/dot/openblas", "opencl/axpy/clblast", "opencl/dot/clblast"})
    EXPECT_NE(registered(id), listed_missing(id)) << id;
  std::string out;
  {
    const std::string cmd = std::string(HETBENCH_BINARY) + " list variants 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    char buf[4096];
    while (std::size_t k = std::fread(buf, 1, sizeof buf, p)) out.append(buf, k);
    ASSERT_EQ(pclose(p), 0) << out;
  }
  for (const auto& [id, why] : missing_baselines()) {
    EXPECT_NE(out.find(id), std::string::npos) << id;
    EXPECT_NE(out.find(why), std::string::npos) << why;
  }
  for (const char* id : {"host/axpy/openblas", "host/dot/openblas", "opencl/axpy/clblast", "opencl/dot/clblast"})
    EXPECT_NE(out.find(id), std::string::npos) << id << " is neither listed as a variant nor as left out";
}

}  // namespace
}  // namespace hetbench
