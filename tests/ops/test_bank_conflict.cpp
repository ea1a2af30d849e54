// bank_conflict: every variant validates exactly on the OpenCL CPU device (PoCL) for
// strides, pads and precisions, at sizes that are not multiples of the work-group size;
// the records carry the shared-memory bandwidth and the conflict degree; bad strides,
// tiles and tiles beyond the device's local memory are one clear error each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetbench/device.hpp"
#include "hetbench/op_extras.hpp"
#include "test_util.hpp"
#include "variant_sweep.hpp"

using namespace hetbench;
using testing::HasSubstr;

namespace {

std::string pocl_device() {
  for (const auto& d : all_devices())
    if (d->info().backend == BackendKind::OpenCL && d->info().type == "cpu") return d->id();
  return "";
}

TEST(BankConflict, ValidatesExactlyOnPocl) {
  const std::string dev = pocl_device();
  if (dev.empty()) GTEST_SKIP() << "no OpenCL CPU device";
  int checked = 0;
  for (const std::string wg : {"64", "256"}) {
    RunSpec spec;
    spec.op = "bank_conflict";
    spec.devices = dev;
    spec.precisions = {Precision::S, Precision::D};
    spec.sizes = {"1@stride=1,5", "7@stride=1,32@pad=1", "1000@stride=1:4:1,16,31@pad=0,1", "4097@stride=1,2,32@pad=0,3",
                  "300@stride=1,3,63@tile=2048"};
    spec.params = {{"WG", wg}};
    spec.reps = 1;
    spec.warmup = 0;
    for (const auto& r : test::run_points(spec)) {
      ASSERT_EQ(r.value("status", ""), "ok") << test::describe(r);
      EXPECT_EQ(r["validation"]["max_err_over_bound"].get<double>(), 0.0) << test::describe(r);
      const auto& d = r["features"]["derived"];
      EXPECT_GT(d["smem_gbs"].get<double>(), 0.0) << test::describe(r);
      // Stride 1 comes first in each group: every point has its ratio, stride 1 exactly 1.
      ASSERT_TRUE(d.contains("conflict_degree")) << test::describe(r);
      if (r["sizes"]["stride"] == 1) EXPECT_EQ(d["conflict_degree"].get<double>(), 1.0);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * 2 * (2 + 2 + 12 + 6 + 3));
}

// The conflict degree compares a point only with stride 1 of the same other sizes.
TEST(BankConflict, ConflictDegreeGroups) {
  const OpExtras* ex = op_extras("bank_conflict");
  ASSERT_TRUE(ex && ex->relative_time);
  const Sizes a{{"n", 100}, {"stride", 1}, {"pad", 0}, {"tile", 1024}};
  Sizes b = a, c = a;
  b["stride"] = 7;
  c["pad"] = 1;
  const ParamValues pv{{"WG", 256}};
  EXPECT_TRUE(ex->relative_time(a, pv)->baseline);
  EXPECT_FALSE(ex->relative_time(b, pv)->baseline);
  EXPECT_EQ(ex->relative_time(a, pv)->group, ex->relative_time(b, pv)->group);
  EXPECT_NE(ex->relative_time(a, pv)->group, ex->relative_time(c, pv)->group);
  EXPECT_NE(ex->relative_time(a, pv)->group, ex->relative_time(a, {{"WG", 64}})->group);
  // 32 + 8 rows of 33 words of 8 bytes: fits 48 KiB of local memory, not 10,000 bytes.
  DeviceInfo di;
  di.local_mem = 48 * 1024;
  EXPECT_EQ(find_op("bank_conflict").device_fit(c, Precision::D, di), "");
  di.local_mem = 10000;
  EXPECT_THAT(find_op("bank_conflict").device_fit(c, Precision::D, di), HasSubstr("needs 10560 bytes of local memory"));
}

TEST(BankConflict, BadInput) {
  test::expect_bad_input("run bank_conflict --size 100@stride=0", "stride = 0 is impossible");
  test::expect_bad_input("run bank_conflict --size 100@stride=34", "stride = 34 is impossible: bank_conflict needs 1 <= stride <= 33");
  test::expect_bad_input("run bank_conflict --size 100@stride=2,9@tile=256", "stride = 9 is impossible");
  test::expect_bad_input("run bank_conflict --size 100@tile=1000", "tile = 1000 is impossible");
  test::expect_bad_input("run bank_conflict --size 100@pad=-1", "pad = -1 is impossible");
  test::expect_bad_input("run bank_conflict --size 100@strides=2", "malformed bank_conflict size '100@strides=2'");
  const std::string dev = pocl_device();
  if (dev.empty()) return;
  test::expect_bad_input("run bank_conflict --device " + dev + " --size 100@tile=2^24", "bytes of local memory per work-group, more than the");
}

}  // namespace
