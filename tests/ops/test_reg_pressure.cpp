// peak reg_pressure: the FMA chains with up to 128 live values per work-item validate on
// the OpenCL CPU device (PoCL) within peak's bound, at sizes that are not multiples of the
// work-group size; OpenCL builds have no register cap and so no slowdown field; a capped
// CUDA build is timed against the unbounded one of the same chains (the group rule here,
// the compile in tests/backends/test_cuda_nvrtc.cpp).
#include <gtest/gtest.h>

#include "hetbench/op_extras.hpp"
#include "test_util.hpp"

using namespace hetbench;

namespace {

TEST(RegPressure, ValidatesOnPocl) {
  std::string dev;
  for (const auto& d : all_devices())
    if (d->info().backend == BackendKind::OpenCL && d->info().type == "cpu") dev = d->id();
  if (dev.empty()) GTEST_SKIP() << "no OpenCL CPU device";
  RunSpec spec;
  spec.op = "peak";
  spec.variants = {"reg_pressure"};
  spec.devices = dev;
  spec.precisions = {Precision::S, Precision::D};
  spec.sizes = {"1", "7", "1000", "4097"};
  spec.params = {{"EPT", "8,32,128"}, {"WG", "64"}};
  spec.reps = 1;
  spec.warmup = 0;
  int checked = 0;
  for (const auto& r : test::run_points(spec)) {
    ASSERT_EQ(r.value("status", ""), "ok") << test::describe(r);
    EXPECT_LE(r["validation"]["max_err_over_bound"].get<double>(), 1.0) << test::describe(r);
    EXPECT_FALSE(r.contains("features") && r["features"].contains("derived")) << test::describe(r);
    ++checked;
  }
  EXPECT_EQ(checked, 2 * 4 * 3);
}

TEST(RegPressure, SlowdownAgainstTheUnboundedBuild) {
  const OpExtras* ex = op_extras("peak");
  ASSERT_TRUE(ex && ex->relative_time);
  const Sizes s{{"n", 1000}};
  const ParamValues free{{"EPT", 64}, {"WG", 256}, {"MINB", 0}, {"MAXREG", 0}};
  ParamValues minb = free, maxreg = free, other = free;
  minb["MINB"] = 4;
  maxreg["MAXREG"] = 32;
  other["EPT"] = 32;
  other["MAXREG"] = 32;
  const auto base = ex->relative_time(s, free);
  ASSERT_TRUE(base);
  EXPECT_TRUE(base->baseline);
  EXPECT_EQ(base->field, "spill_slowdown");
  for (const auto& pv : {minb, maxreg}) {
    EXPECT_FALSE(ex->relative_time(s, pv)->baseline);
    EXPECT_EQ(ex->relative_time(s, pv)->group, base->group);
  }
  EXPECT_NE(ex->relative_time(s, other)->group, base->group);
  // peak's fma variant has no register cap: not compared.
  EXPECT_FALSE(ex->relative_time(s, {{"EPT", 8}, {"WG", 256}}));
}

}  // namespace
