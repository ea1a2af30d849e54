// GEMM: every variant x S/D x NN/NT/TN/TT x odd sizes validates on the host and on PoCL;
// size tokens parse (and fail with the token named); an off-by-one kernel is caught by
// the bound; large problems validate a sample and say so.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"

using namespace hetbench;
using testing::HasSubstr;

namespace {

const std::vector<std::string> kLayouts{"NN", "NT", "TN", "TT"};

std::vector<std::string> sizes_all_layouts() {
  std::vector<std::string> out;
  // 1x1x1: a single element; 17x33x5 and 129x65x257: no dimension a multiple of any tile.
  for (const auto& l : kLayouts)
    for (const char* d : {"1x1x1", "17x33x5", "129x65x257"}) out.push_back(std::string(d) + "@" + l);
  return out;
}

// The defaults, plus one more parameter set where a kernel has tiles: non-square, with
// one element per work-item in one direction, so that other index paths run too.
std::vector<std::map<std::string, std::string>> gemm_param_sets(const Variant& v) {
  std::vector<std::map<std::string, std::string>> out{{}};
  if (v.name == "tiled") out.push_back({{"BM", "32"}, {"BN", "16"}, {"BK", "8"}, {"TM", "2"}, {"TN", "1"}});
  if (v.name == "naive" && v.backend == BackendKind::OpenCL) out.push_back({{"WX", "8"}, {"WY", "4"}});
  if (v.name == "coarse" && v.backend == BackendKind::OpenCL)
    out.push_back({{"BARRIER", "0"}, {"DI", "2"}, {"DJ", "8"}, {"WX", "8"}, {"WY", "4"}});
  // 32 work-items fetch a 16x4 tile of op(B) in 16 4-vectors: some work-items fetch none.
  // Split-K with its sum pass: 3 slices of 129x65x257's 17 k-tiles (not dividing them),
  // and 2 slices of 17x33x5's two 4-deep k-tiles (the last one partial); 1x1x1 (one
  // k-tile) is skipped by the constraint.
  if (v.name == "regblock" && v.backend == BackendKind::OpenCL) {
    out.push_back({{"BM", "32"}, {"BN", "16"}, {"BK", "4"}, {"TM", "4"}, {"TN", "4"}});
    out.push_back({{"SPLITK", "3"}});
    out.push_back({{"BM", "32"}, {"BN", "16"}, {"BK", "4"}, {"TM", "4"}, {"TN", "4"}, {"SPLITK", "2"}});
  }
  return out;
}

TEST(Gemm, EveryVariantValidatesInEveryLayout) {
  int checked = 0;
  std::set<std::string> ids;
  for (const auto& v : variants_for("gemm")) {
    if (v->backend == BackendKind::Cuda) continue;  // tests/backends/test_cuda_backend.cpp
    if (std::find(v->precisions.begin(), v->precisions.end(), Precision::S) == v->precisions.end())
      continue;  // DF/DD only: tests/ops/test_gemm_dw.cpp
    for (const auto& dev : all_devices()) {
      if (dev->kernel_language() != v->backend) continue;
      for (const auto& ps : gemm_param_sets(*v)) {
        RunSpec spec;
        spec.op = "gemm";
        spec.variants = {v->name};
        spec.devices = dev->id();
        spec.sizes = sizes_all_layouts();
        spec.params = ps;
        spec.reps = 1;
        spec.warmup = 0;
        std::set<std::string> layouts;
        for (const auto& r : test::run_points(spec)) {
          const std::string st = r.value("status", "");
          if (st == "skipped") continue;  // a constraint excludes the parameter set on this device
          EXPECT_EQ(st, "ok") << test::describe(r);
          EXPECT_LE(r["validation"]["max_err_over_bound"].get<double>(), 1.0) << test::describe(r);
          const auto& s = r["sizes"];
          layouts.insert(std::to_string(s["ta"].get<int>()) + std::to_string(s["tb"].get<int>()));
          ids.insert(v->id());
          ++checked;
        }
        EXPECT_EQ(layouts.size(), 4u) << v->id() << " on " << dev->id() << " with " << nlohmann::json(ps).dump();
      }
    }
  }
  EXPECT_TRUE(ids.count("host/gemm/naive"));
  EXPECT_TRUE(ids.count("opencl/gemm/naive"));
  EXPECT_TRUE(ids.count("opencl/gemm/tiled"));
  EXPECT_GT(checked, 0);
}

// The plain form (C = op(A)·op(B), C unset on entry: the engine's poison) in every host
// and OpenCL variant: BLAS's rule that beta = 0 reads nothing of C, which naive, tiled and
// coarse once broke (beta·NaN is NaN).
TEST(Gemm, PlainFormValidatesInEveryVariant) {
  std::set<std::string> ids;
  for (const auto& v : variants_for("gemm")) {
    if (v->backend == BackendKind::Cuda) continue;  // tests/backends/test_cuda_backend.cpp
    if (std::find(v->precisions.begin(), v->precisions.end(), Precision::S) == v->precisions.end()) continue;
    for (const auto& dev : all_devices()) {
      if (dev->kernel_language() != v->backend) continue;
      RunSpec spec;
      spec.op = "gemm";
      spec.variants = {v->name};
      spec.devices = dev->id();
      spec.precisions = {Precision::S, Precision::D};
      spec.sizes = {"65x33x17@plain", "17x33x5@TN@plain"};
      spec.reps = 1;
      spec.warmup = 0;
      for (const auto& r : test::run_points(spec)) {
        if (r.value("status", "") == "skipped") continue;
        EXPECT_EQ(r.value("status", ""), "ok") << test::describe(r);
        ids.insert(v->id());
      }
    }
  }
  for (const char* id : {"host/gemm/naive", "opencl/gemm/naive", "opencl/gemm/tiled", "opencl/gemm/coarse"})
    EXPECT_TRUE(ids.count(id)) << id;
}

// @iter=N: N products in the plain form, the work N products'; @iter=1 is no iteration
// (the sizes stay as a plain problem's, so records compare).
TEST(Gemm, IterSuffixMultipliesInThePlainForm) {
  const Op& op = find_op("gemm");
  auto s = op.parse_sizes("17x33x5@TN@iter=4");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0], (Sizes{{"m", 17}, {"n", 33}, {"k", 5}, {"ta", 1}, {"tb", 0}, {"plain", 1}, {"iter", 4}}));
  EXPECT_FALSE(op.parse_sizes("64@iter=1")[0].contains("iter"));
  auto prob = op.make_problem(s[0], Precision::S, 3);
  EXPECT_DOUBLE_EQ(prob->flops, 4 * 2.0 * 17 * 33 * 5);
  EXPECT_EQ(prob->features.at("iter"), 4);
  auto once = op.make_problem(op.parse_sizes("17x33x5@TN@plain")[0], Precision::S, 3);
  EXPECT_DOUBLE_EQ(prob->min_bytes, 4 * once->min_bytes);
}

TEST(Gemm, ParsesSizeTokens) {
  const Op& op = find_op("gemm");
  auto s = op.parse_sizes("17x33x5");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0], (Sizes{{"m", 17}, {"n", 33}, {"k", 5}, {"ta", 0}, {"tb", 0}}));
  s = op.parse_sizes("17x33x5@NT");
  EXPECT_EQ(s[0], (Sizes{{"m", 17}, {"n", 33}, {"k", 5}, {"ta", 0}, {"tb", 1}}));
  s = op.parse_sizes("2^6@TN");
  EXPECT_EQ(s[0], (Sizes{{"m", 64}, {"n", 64}, {"k", 64}, {"ta", 1}, {"tb", 0}}));
  s = op.parse_sizes("64:1024:64@TT");
  ASSERT_EQ(s.size(), 16u);
  EXPECT_EQ(s.back(), (Sizes{{"m", 1024}, {"n", 1024}, {"k", 1024}, {"ta", 1}, {"tb", 1}}));
  s = op.parse_sizes("8,3x4x5");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].at("n"), 4);
}

TEST(Gemm, BadSizeTokensNameTheToken) {
  const Op& op = find_op("gemm");
  // Each bad token is refused with a message that names it (as `prefix'TOKEN'`) and says why.
  auto refused = [&](std::initializer_list<const char*> tokens, const std::string& prefix, const std::string& why) {
    for (const char* bad : tokens) {
      try {
        op.parse_sizes(bad);
        ADD_FAILURE() << "'" << bad << "' was accepted";
      } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr(prefix + "'" + bad + "'")) << e.what();
        EXPECT_THAT(e.what(), HasSubstr(why)) << e.what();
      }
    }
  };
  refused({"17x33", "17x33x5x2", "17x33x5@XY", "17x33x5@N", "@NN", "", "axbxc", "4x4x1:8", "8@NN@TT", "17x33x5,"},
          "malformed GEMM size ", "expected N, MxNxK or a range, optionally @NN|NT|TN|TT");
  refused({"0x3x3", "3x3x0", "0", "3x-1x3"}, "", "m, n, k >= 1");
  // A suffix ends the token: a list of sizes with a layout each is several tokens.
  refused({"256@NT,256@TN", "8,16@TT,32"}, "GEMM size ", "give each layout or storage its own --size");
  refused({"64@iter=0", "64@iter=1001", "64@iter=x", "64@iter=", "64@iter=2@iter=3", "64@iter=2.5"}, "GEMM size ",
          "iter must be a whole number from 1 to 1000 (once)");
  refused({"64@iter=2@scaled", "64@scaled@iter=2"}, "GEMM size ", "leave out @scaled");
}

TEST(Gemm, OffByOneKernelFailsValidation) {
  test::TempDir out;
  auto r = test::run_hetbench("--kernels " + test::source_dir() +
                              "/tests/kernels/wrong run gemm --variant offbyone --device opencl:0:0 --size 17x33x5,64 "
                              "--reps 1 --out " +
                              out.str() + " --seed " + std::to_string(test::fresh_seed()));
  EXPECT_EQ(r.status, 1) << r.output;
  auto recs = read_results(test::only_experiment(out.path()));
  ASSERT_EQ(recs.size(), 4u);  // 2 sizes x S/D
  for (const auto& rec : recs) {
    EXPECT_EQ(rec["status"], "failed") << test::describe(rec);
    EXPECT_GT(rec["validation"]["max_err_over_bound"].get<double>(), 1.0) << test::describe(rec);
  }
}

TEST(Gemm, LargeProblemsValidateASample) {
  RunSpec spec;
  spec.op = "gemm";
  spec.variants = {"host/gemm/naive"};
  spec.devices = "host";
  spec.precisions = {Precision::S};
  spec.sizes = {"1024x1024x256"};  // 2^28 multiply-adds > 2^27
  spec.reps = 1;
  spec.warmup = 0;
  auto recs = test::run_points(spec);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0]["status"], "ok") << test::describe(recs[0]);
  EXPECT_EQ(recs[0]["validation"]["checked"], 4096) << test::describe(recs[0]);
  EXPECT_THAT(recs[0]["validation"]["note"].get<std::string>(), HasSubstr("sampled 4096 of 1048576 elements"));
}

}  // namespace
