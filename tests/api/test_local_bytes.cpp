// Local memory sized at launch ("local_bytes" in the metadata): on OpenCL the launch
// passes one more `local` pointer argument of that size. A user kernel reverses each
// work-group's slice of x through it, so the copy validates only if the memory is there,
// the barrier holds, and the partial last group (n not a multiple of WG) stays inside.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;

namespace {

// Work-item l stores its element of x at slot l, and after the barrier copies the slot
// that work-item (last - l) stored to where that element belongs in y: a plain copy, but
// every element crosses between work-items through the tile.
const char* kSource = R"CL(
kernel void copy_tile(const uint n, global const REAL* restrict x, global REAL* restrict y, local REAL* tile) {
  const uint i = get_global_id(0), l = get_local_id(0);
  const uint first = get_group_id(0) * get_local_size(0);
  const uint last = min((uint)get_local_size(0), n - first) - 1;  // the partial last group is shorter
  if (i < n) tile[l] = x[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) y[first + last - l] = tile[last - l];
}
)CL";

std::string metadata(const std::string& launch_extra) {
  return fmt::format(R"J({{"name": "tile", "op": "copy", "backend": "opencl", "source": "tile.cl",
    "precisions": ["S", "D"], "params": {{"WG": {{"values": [64, 128], "default": 64}}}},
    "constraints": ["WG * elem_bytes <= local_mem_launch"],
    "launches": [{{"kernel": "copy_tile", "args": ["n", "x", "y"], "global": "roundup(n, WG)", "local": "WG"{}}}]}})J",
                     launch_extra);
}

}  // namespace

TEST(LocalBytes, OpenClKernelGetsATrailingLocalPointer) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device";
  TempDir d;
  write_text(d.path() / "tile.cl", kSource);
  write_text(d.path() / "tile.json", metadata(R"(, "local_bytes": "WG * elem_bytes")"));
  auto r = run_hetbench("--kernels " + (d.path() / "tile.json").string() + " run copy --variant tile" +
                        " --device opencl:0:0 --precision S,D --size 1000,4099 --param WG=64,128 --reps 2 --out " +
                        (d.path() / "out").string() + " --seed " + std::to_string(fresh_seed()));
  ASSERT_EQ(r.status, 0) << r.output;
  auto recs = hetbench::read_results(only_experiment(d.path() / "out"));
  ASSERT_EQ(recs.size(), 8u);
  for (const auto& rec : recs) EXPECT_EQ(rec["status"], "ok") << describe(rec);
}

TEST(LocalBytes, WithoutTheArgumentTheLaunchFailsAndSaysWhy) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device";
  TempDir d;
  write_text(d.path() / "tile.cl", kSource);
  write_text(d.path() / "tile.json", metadata(""));  // the kernel's fourth argument is never set
  auto r = run_hetbench("--kernels " + (d.path() / "tile.json").string() + " run copy --variant tile" +
                        " --device opencl:0:0 --size 1000 --reps 1 --out " + (d.path() / "out").string());
  EXPECT_NE(r.status, 0) << r.output;
  auto recs = hetbench::read_results(only_experiment(d.path() / "out"));
  ASSERT_EQ(recs.size(), 2u);  // S and D
  for (const auto& rec : recs) {
    EXPECT_EQ(rec["status"], "error") << describe(rec);
    EXPECT_THAT(rec["message"].get<std::string>(), HasSubstr("trailing local pointer needs \"local_bytes\""));
  }
}

TEST(LocalBytes, MisspeltLaunchKeyNamesFileAndKey) {
  TempDir d;
  write_text(d.path() / "tile.cl", kSource);
  write_text(d.path() / "tile.json", metadata(R"(, "local_byte": "WG * elem_bytes")"));
  auto r = run_hetbench("--kernels " + (d.path() / "tile.json").string() + " run copy --variant tile --device host --size 100 --out " +
                        (d.path() / "out").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tile.json: key 'launches[0].local_byte': unknown key"));
  write_text(d.path() / "tile.json", metadata(R"(, "local_bytes": "WG * elem_bytes + q")"));
  r = run_hetbench("--kernels " + (d.path() / "tile.json").string() + " run copy --variant tile --device host --size 100 --out " +
                   (d.path() / "out").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tile.json: key 'launches[0].local_bytes': unknown name 'q'"));
}
