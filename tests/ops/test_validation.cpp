// The bound check catches deliberately wrong kernels and NaN, and the exit status says so.
// The wrong kernels are OpenCL kernels; they run on the first OpenCL device only, so that
// the record counts hold on machines with several.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;

namespace {

std::vector<nlohmann::json> run_wrong(const std::string& args, int expect_status) {
  TempDir out;
  auto r = run_hetbench("--kernels " + source_dir() + "/tests/kernels/wrong " + args + " --device opencl:0:0 --out " +
                        out.str() + " --seed " + std::to_string(fresh_seed()));
  EXPECT_EQ(r.status, expect_status) << r.output;
  return hetbench::read_results(only_experiment(out.path()));
}

}  // namespace

TEST(Validation, UnwrittenElementFails) {
  for (const char* n : {"1", "7", "1000", "4097"}) {
    auto recs = run_wrong(std::string("run axpy --variant skip_last --size ") + n + " --reps 2", 1);
    ASSERT_EQ(recs.size(), 2u);  // S and D
    for (const auto& r : recs) {
      EXPECT_EQ(r["status"], "failed") << describe(r);
      EXPECT_EQ(r["validation"]["unwritten"], 1) << describe(r);
      EXPECT_TRUE(r.contains("timing"));  // figures are kept with the failure
    }
  }
}

// A kernel whose first run is right and whose later runs leave an element unwritten: the
// timed repetitions are not poisoned (docs/measurement.md), so the run validated after
// them must be, on every round's buffers and with fixed and adaptive repetitions alike.
TEST(Validation, ARunAfterTheTimedRepetitionsIsValidated) {
  for (const char* reps : {"--reps 3", "--reps 8 --rounds 4", "--min-samples 10 --min-time 0.001"}) {
    SCOPED_TRACE(reps);
    auto recs = run_wrong(std::string("run axpy --variant first_call_only --size 1000 --warmup 0 ") + reps, 1);
    ASSERT_EQ(recs.size(), 2u);  // S and D
    for (const auto& r : recs) {
      EXPECT_EQ(r["status"], "failed") << describe(r);
      EXPECT_EQ(r["validation"]["unwritten"], 1) << describe(r);
    }
  }
}

TEST(Validation, SkippedElementInSumExceedsBound) {
  auto recs = run_wrong("run dot --variant skip_one --size 7,100 --reps 2", 1);
  ASSERT_EQ(recs.size(), 4u);
  for (const auto& r : recs) {
    EXPECT_EQ(r["status"], "failed") << describe(r);
    EXPECT_GT(r["validation"]["max_err_over_bound"].get<double>(), 1.0) << describe(r);
  }
}

TEST(Validation, NanFails) {
  auto recs = run_wrong("run dot --variant nan --size 100 --reps 1", 1);
  ASSERT_EQ(recs.size(), 2u);  // S and D
  for (const auto& r : recs) {
    EXPECT_EQ(r["status"], "failed");
    EXPECT_EQ(r["validation"]["nan"], 1);
  }
}

TEST(Validation, CorrectRunExitsZero) {
  TempDir out;
  auto r = run_hetbench("run axpy --device host --size 1000 --reps 2 --out " + out.str());
  EXPECT_EQ(r.status, 0) << r.output;
}
