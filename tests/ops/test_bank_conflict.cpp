// bank_conflict: every variant (the shared-memory tile and the other memory spaces:
// global, constant, local) validates exactly on the OpenCL CPU device (PoCL) for strides
// (0, a broadcast, included), pads and precisions, at sizes that are not multiples of the
// work-group size; the records carry the shared-memory bandwidth, the conflict degree and
// the sector model's raw bytes; bad strides, tiles and tiles beyond the device's local
// memory are one clear error each, and so is a module symbol on a backend without them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "hetbench/device.hpp"
#include "hetbench/variant.hpp"
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
  std::set<std::string> variants;
  for (const std::string wg : {"64", "256"}) {
    RunSpec spec;
    spec.op = "bank_conflict";
    spec.devices = dev;
    spec.precisions = {Precision::S, Precision::D};
    spec.sizes = {"1@stride=1,5", "7@stride=1,32@pad=1", "1000@stride=1:4:1,16,31,0@pad=0,1", "4097@stride=1,2,32@pad=0,3",
                  "300@stride=1,3,63@tile=2048", "333@stride=1,0@tile=64"};
    spec.params = {{"WG", wg}};
    spec.reps = 1;
    spec.warmup = 0;
    for (const auto& r : test::run_points(spec)) {
      ASSERT_EQ(r.value("status", ""), "ok") << test::describe(r);
      variants.insert(r["variant"].get<std::string>());
      EXPECT_GT(r["raw_bytes"].get<double>(), 0.0) << test::describe(r);
      EXPECT_EQ(r["validation"]["max_err_over_bound"].get<double>(), 0.0) << test::describe(r);
      const auto& d = r["features"]["derived"];
      EXPECT_GT(d["smem_gbs"].get<double>(), 0.0) << test::describe(r);
      // Stride 1 comes first in each group: every point has its ratio, stride 1 exactly 1.
      ASSERT_TRUE(d.contains("conflict_degree")) << test::describe(r);
      if (r["sizes"]["stride"] == 1) EXPECT_EQ(d["conflict_degree"].get<double>(), 1.0);
      ++checked;
    }
  }
  EXPECT_EQ(variants, (std::set<std::string>{"tile", "global", "constant", "local"}));
  EXPECT_EQ(checked, 4 * 2 * 2 * (2 + 2 + 14 + 6 + 3 + 2));
}

// The sector model (docs/memory-system.md): the distinct granules of each warp load
// instruction, over the 2048 loads of every lane. Two full warps, 1024-word tile.
TEST(BankConflict, RawBytesCountEachWarpLoadsGranules) {
  const Op& op = find_op("bank_conflict");
  auto raw = [&](const char* token, Precision p, std::size_t g) {
    return op.make_problem(op.parse_sizes(token).at(0), p, 1)->raw_bytes(g);
  };
  const double per_warp_loads = 2048;  // instructions per warp, one per lane's load
  EXPECT_DOUBLE_EQ(raw("64@stride=0", Precision::S, 32), 2 * per_warp_loads * 32);        // a broadcast: 1 sector
  EXPECT_DOUBLE_EQ(raw("64@stride=1", Precision::S, 32), 2 * per_warp_loads * 4 * 32);    // 128 bytes: 4 sectors
  EXPECT_DOUBLE_EQ(raw("64@stride=1", Precision::D, 32), 2 * per_warp_loads * 8 * 32);    // 256 bytes: 8
  EXPECT_DOUBLE_EQ(raw("64@stride=8", Precision::S, 32), 2 * per_warp_loads * 32 * 32);   // 32 bytes apart: 32
  EXPECT_DOUBLE_EQ(raw("64@stride=1", Precision::S, 64), 2 * per_warp_loads * 2 * 64);    // 2 cache lines
  // A partial warp of 8 lanes at stride 1: 32 bytes, one sector.
  EXPECT_DOUBLE_EQ(raw("40@stride=1", Precision::S, 32), (4 + 1) * per_warp_loads * 32);
}

// "symbols" (CUDA's __constant__ memory) names an input array; an OpenCL program has no
// module globals, so such a variant's point is one clear error, not a silent run.
TEST(BankConflict, SymbolsNameAnInputAndNeedABackendWithModuleGlobals) {
  auto meta = nlohmann::ordered_json::parse(R"json({
    "name": "mine", "op": "bank_conflict", "backend": "opencl", "source": "space.k", "precisions": ["S"],
    "defines": {"TILE": "tile", "SPACE": "0"}, "symbols": {"hb_space_table": "y"},
    "entry": "bank_conflict_space", "args": ["n", "stride", "loads", "x", "y"], "global": "roundup(n, 64)", "local": "64"})json");
  const std::string dir = data_dir("kernels") + "/portable/bank_conflict";
  try {
    parse_variant_json(meta, dir, "mine.json");
    ADD_FAILURE() << "an output operand was accepted as a symbol's source";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'y' is not an input array of bank_conflict"));
  }
  const std::string dev = pocl_device();
  if (dev.empty()) return;
  test::TempDir tmp;
  meta["symbols"] = {{"hb_space_table", "x"}};
  std::filesystem::copy_file(dir + "/space.k", tmp.path() / "space.k");
  test::write_text(tmp.path() / "mine.json", meta.dump());
  const auto r = test::run_hetbench("run bank_conflict --kernels " + tmp.str() +
                                    " --variant mine --device " + dev + " --size 100 --reps 1 --no-db --out " +
                                    (tmp.path() / "out").string());
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("module global 'hb_space_table': this backend's programs have none"));
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
  test::expect_bad_input("run bank_conflict --size 100@stride=-1", "stride = -1 is impossible");
  test::expect_bad_input("run bank_conflict --size 100@stride=34", "stride = 34 is impossible: bank_conflict needs 0 <= stride <= 33");
  test::expect_bad_input("run bank_conflict --size 100@stride=2,9@tile=256", "stride = 9 is impossible");
  test::expect_bad_input("run bank_conflict --size 100@tile=1000", "tile = 1000 is impossible");
  test::expect_bad_input("run bank_conflict --size 100@pad=-1", "pad = -1 is impossible");
  test::expect_bad_input("run bank_conflict --size 100@strides=2", "malformed bank_conflict size '100@strides=2'");
  const std::string dev = pocl_device();
  if (dev.empty()) return;
  test::expect_bad_input("run bank_conflict --device " + dev + " --size 100@tile=2^24", "bytes of local memory per work-group, more than the");
}

}  // namespace
