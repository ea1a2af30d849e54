// The peak op (validation on host and PoCL, a wrong result caught by the bound) and
// `hetbench ceilings` (file written, later records judged against it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "characterize/ceilings.hpp"
#include "engine/record/results.hpp"
#include "engine/runner.hpp"
#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "test_util.hpp"

namespace hetbench {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& tag) {
  std::random_device rd;
  auto d = fs::temp_directory_path() / fmt::format("hetbench-{}-{:08x}", tag, rd());
  fs::create_directories(d);
  return d;
}

class CeilingsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cache_ = fresh_dir("ceil-cache");
    setenv("HETBENCH_CACHE_DIR", cache_.c_str(), 1);  // keep ~/.cache out of the tests
    out_ = fresh_dir("ceil-out");
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(cache_, ec);
    fs::remove_all(out_, ec);
  }

  static inline fs::path cache_, out_;
};

RunSpec spec(const std::string& op, const std::string& device, std::vector<std::string> sizes,
             std::map<std::string, std::string> params = {}) {
  RunSpec r;
  r.op = op;
  r.devices = device;
  r.sizes = std::move(sizes);
  r.params = std::move(params);
  r.reps = 2;
  r.warmup = 0;
  return r;
}

void expect_all_ok(const std::vector<nlohmann::json>& recs, std::size_t expected) {
  EXPECT_EQ(recs.size(), expected);
  for (const auto& r : recs) EXPECT_EQ(r.value("status", ""), "ok") << r.dump();
}

TEST_F(CeilingsTest, PeakValidatesOnHost) {
  auto r = spec("peak", "host", {"1,7,1000,4097"}, {{"EPT", "8,16,64"}});
  r.variants = {"host/peak/omp"};
  // 4 sizes x 3 EPT x 2 precisions
  expect_all_ok(test::run_points(r), 24);
}

TEST_F(CeilingsTest, PeakValidatesOnPocl) {
  if (!test::have_opencl()) GTEST_SKIP() << "no OpenCL device";
  auto r = spec("peak", "opencl:0:0", {"1,7,1000,4097"}, {{"EPT", "1,2,4,8,16"}, {"WG", "64"}});
  r.variants = {"opencl/peak/fma"};
  expect_all_ok(test::run_points(r), 40);
}

// out from the recurrence itself, then deliberately wrong versions of it.
template <class T>
void wrong_results_caught(Precision p) {
  const Op& op = find_op("peak");
  auto prob = op.make_problem({{"n", 257}}, p, 99);
  const T b = static_cast<T>(prob->scalar("b")->value), c = static_cast<T>(prob->scalar("c")->value);
  ASSERT_GE(b, 0.25);
  ASSERT_LE(b, 0.75);
  const auto iters = static_cast<int>(prob->scalar("iters")->value);
  const T* a = reinterpret_cast<const T*>(prob->array("a").host.data());
  auto chain = [&](T x, int k) {
    for (int i = 0; i < k; ++i) x = x * b + c;
    return x;
  };
  auto outputs = [&](auto f) {
    hetbench::Bytes bytes(257 * sizeof(T));
    T* o = reinterpret_cast<T*>(bytes.data());
    for (int i = 0; i < 257; ++i) o[i] = f(i);
    return Outputs{{"out", bytes}};
  };
  auto good = op.validate(*prob, outputs([&](int i) { return chain(a[i], iters); }));
  EXPECT_TRUE(good.passed()) << good.max_ratio;
  EXPECT_LT(good.max_ratio, 1.0);
  // Fused steps are within the bound too.
  auto fused = op.validate(*prob, outputs([&](int i) {
    T x = a[i];
    for (int k = 0; k < iters; ++k) x = std::fma(x, b, c);
    return x;
  }));
  EXPECT_TRUE(fused.passed()) << fused.max_ratio;
  // One element 64 ulps off, the chain skipped, the chain cut short.
  auto off = op.validate(*prob, outputs([&](int i) {
    T x = chain(a[i], iters);
    return i == 100 ? x + 64 * std::numeric_limits<T>::epsilon() * std::fabs(x) : x;
  }));
  EXPECT_FALSE(off.passed());
  EXPECT_EQ(off.over_bound, 1u);
  EXPECT_FALSE(op.validate(*prob, outputs([&](int i) { return a[i]; })).passed());
  EXPECT_FALSE(op.validate(*prob, outputs([&](int i) { return chain(a[i], 16); })).passed());
}

TEST_F(CeilingsTest, WrongPeakResultIsCaught) {
  wrong_results_caught<float>(Precision::S);
  wrong_results_caught<double>(Precision::D);
}

TEST_F(CeilingsTest, CeilingsCommandWritesFileAndRecordsGetPct) {
  // One child process measures both devices first, before this process runs anything
  // that could compete with it for the cores. --quick: defaults only, so that the test
  // stays short; 2^22 leaves the host's caches.
  const std::string devs = test::have_opencl() ? "host,opencl:0:0" : "host";
  const std::string cmd = fmt::format(
      "exec {} ceilings {} --size 2^22 --peak-size 2^15 --reps 5 --warmup 1 --quick --out {} >{} 2>&1",
      HETBENCH_BINARY, devs, (out_ / "ceil").string(), (out_ / "ceil.log").string());
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  for (const std::string dev : {std::string("host"), std::string("opencl:0:0")}) {
    if (dev != "host" && !test::have_opencl()) continue;
    auto d = resolve_devices(dev).at(0);
    auto c = load_ceilings(d->info());
    ASSERT_TRUE(c.has_value()) << dev;
    EXPECT_TRUE(fs::exists(ceilings_path(d->info())));
    EXPECT_EQ(c->file, ceilings_path(d->info()));
    EXPECT_EQ(ceilings_path(d->info()).parent_path(), cache_ / "ceilings");
    ASSERT_TRUE(c->copy_gbs());
    EXPECT_GT(*c->copy_gbs(), 0);
    ASSERT_TRUE(c->peak_gflops(Precision::S));
    ASSERT_TRUE(c->peak_gflops(Precision::D));
    EXPECT_GT(*c->peak_gflops(Precision::S), 0);
    EXPECT_TRUE(fs::is_directory(c->experiment)) << c->experiment;

    // The same ops again: every record is judged against the stored ceilings.
    for (const char* op : {"copy", "peak"}) {
      auto r = spec(op, dev, {op == std::string("copy") ? "2^22" : "2^15"});
      r.reps = 5;
      r.warmup = 1;
      auto recs = test::run_points(r);
      ASSERT_FALSE(recs.empty());
      for (const auto& rec : recs) {
        SCOPED_TRACE(rec.dump());
        ASSERT_EQ(rec.value("status", ""), "ok");
        ASSERT_TRUE(rec.contains("pct_ceiling"));
        ASSERT_TRUE(rec.contains("ceiling"));
        EXPECT_EQ(rec["ceiling"]["source"], c->file.string());
        // No timing bound here (timings on a loaded CI machine prove nothing): the
        // percentages must follow from the record's own figures and the stored ceilings.
        const double t = rec["timing"]["seconds"]["median"].get<double>();
        const double floor_s = std::max(rec["flops"].get<double>() / (rec["ceiling"]["gflops"].get<double>() * 1e9),
                                        rec["min_bytes"].get<double>() / (rec["ceiling"]["gbs"].get<double>() * 1e9));
        EXPECT_NEAR(rec["pct_ceiling"].get<double>(), 100 * floor_s / t, 1e-6 * 100 * floor_s / t);
        ASSERT_TRUE(rec.contains("pct_bw"));
        EXPECT_NEAR(rec["pct_bw"].get<double>(), 100 * rec["gbs"].get<double>() / rec["ceiling"]["gbs"].get<double>(),
                    1e-6 * rec["pct_bw"].get<double>());
      }
    }
  }
}

TEST(CeilingsMath, RooflineTakesTheSlowerOfComputeAndMemory) {
  Ceilings c;
  c.copy = CeilingValue{100, "x", {}, {}, "S"};  // 100 GB/s
  c.peak_s = CeilingValue{1000, "y", {}, {}, "S"};  // 1000 GFLOP/s
  // memory-bound: 1e9 bytes at 100 GB/s = 10 ms floor; 2 flops/100 bytes irrelevant
  EXPECT_NEAR(*roofline_pct(c, Precision::S, 2e7, 1e9, 0.02), 50, 1e-9);
  // compute-bound: 1e12 flops at 1 TFLOP/s = 1 s floor
  EXPECT_NEAR(*roofline_pct(c, Precision::S, 1e12, 1e6, 4.0), 25, 1e-9);
  // no D peak: only the bandwidth term
  EXPECT_NEAR(*roofline_pct(c, Precision::D, 1e12, 1e9, 0.01), 100, 1e-9);
  EXPECT_FALSE(roofline_pct(c, Precision::S, 0, 0, 1.0));
}

// DF and DD are judged against their own peak: a double-word multiply-add is at least 16
// word instructions (op_counts::mad_sloppy), so the S (D) FMA peak / 16 in DF (DD) flops.
// Before, a DF GEMM at 6 % of that peak showed as 1.0 % of the S peak.
TEST(CeilingsMath, DoubleWordsAreJudgedAgainstTheirOwnPeak) {
  Ceilings c;
  c.copy = CeilingValue{100, "x", {}, {}, "S"};
  c.peak_s = CeilingValue{1600, "y", {}, {}, "S"};
  c.peak_d = CeilingValue{800, "z", {}, {}, "D"};
  EXPECT_NEAR(*c.peak_gflops(Precision::DF), 100, 1e-9);
  EXPECT_NEAR(*c.peak_gflops(Precision::DD), 50, 1e-9);
  EXPECT_FALSE(c.peak_gflops(Precision::I32));
  // 1e11 DF flops at 100 GFLOP/s: a 1 s floor, measured 2 s.
  EXPECT_NEAR(*roofline_pct(c, Precision::DF, 1e11, 1e6, 2.0), 50, 1e-9);
  EXPECT_NEAR(*roofline_pct(c, Precision::DD, 1e11, 1e6, 4.0), 50, 1e-9);
  c.peak_d.reset();
  EXPECT_FALSE(c.peak_gflops(Precision::DD));
}

}  // namespace
}  // namespace hetbench
