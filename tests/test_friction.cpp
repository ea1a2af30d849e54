// What a new user types and used to be refused or silently changed: a size list whose
// pieces each carry a suffix, a device that none of the named variants runs on, and the
// vendor baselines of "libraries" that lack a precision.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/results.hpp"
#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;
using testing::Not;

TEST(Friction, EachPieceOfASizeListMayCarryItsOwnSuffix) {
  TempDir d;
  const std::string out = " --device host --variant naive --precision S --reps 1 --out " + d.str();
  auto r = run_hetbench("run gemm --size 64@NN,65x33x17@NT,40,24@TN" + out, "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto recs = hetbench::read_results(only_experiment(d.path()));
  ASSERT_EQ(recs.size(), 4u) << r.output;
  EXPECT_EQ(recs[0]["sizes"]["tb"], 0);
  EXPECT_EQ(recs[1]["sizes"]["m"], 65);
  EXPECT_EQ(recs[1]["sizes"]["tb"], 1);
  for (int i : {2, 3}) {  // "40,24@TN": the suffix applies to the list before it
    EXPECT_EQ(recs[i]["sizes"]["ta"], 1) << recs[i].dump();
    EXPECT_EQ(recs[i]["status"], "ok") << recs[i].dump();
  }
  // A piece without a suffix after one that has one stays an error, naming the token.
  r = run_hetbench("run gemm --size 64@NT,96" + out, "HETBENCH_DB=none");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("'64@NT,96'"));
}

TEST(Friction, ADeviceThatNoNamedVariantRunsOnIsNamed) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device (PoCL) here";
  TempDir d;
  auto r = run_hetbench("run copy --device opencl:0:0,host --variant vec,simple --precision S --size 1000 --reps 1 --out " +
                        d.str());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("nothing to run on host: vec, simple have no host variant (copy's there: loop"));
}

TEST(Friction, LibrariesWithoutThePrecisionAreNotListedOneByOne) {
  TempDir d;
  auto r = run_hetbench("run axpy --device host --variant auto,libraries --precision S,DF --size 1000 --reps 1 --out " +
                            d.str(),
                        "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("skipping")));
  // Named on purpose, a baseline without the precision is refused as before.
  r = run_hetbench("run axpy --device host --variant openblas --precision DF --size 1000 --reps 1 --out " + d.str(),
                   "HETBENCH_DB=none");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("has no DF version"));
}
