// copy_strided: every host and OpenCL variant validates exactly at offsets 0..32 and
// strides 1..64 for sizes that are not multiples of the work-group size; the raw-bytes
// model counts sectors as docs/memory-system.md says; bad offsets and strides are refused.
#include "variant_sweep.hpp"
#include "hetbench/error.hpp"

using namespace hetbench;
using namespace hetbench::test;

namespace {

double raw(const std::string& token, Precision p, std::size_t g) {
  const Op& op = find_op("copy_strided");
  auto prob = op.make_problem(op.parse_sizes(token).at(0), p, 5);
  return prob->raw_bytes(g);
}

}  // namespace

TEST(CopyStrided, EveryVariantValidatesOnHostAndPocl) {
  auto recs = validate_every_variant("copy_strided", {"1", "1000@offset=0,1,32@stride=1,2,64", "2^17+3@offset=5@stride=7",
                                      // the vector path at stride 1 (offset % VW == 0), with a scalar tail
                                      "2^17+3", "1001@offset=2,4"},
                                     {{Precision::S, Precision::D}, 1, 0.0});
  auto n = by_backend(recs);
  EXPECT_GT(n["host"], 0);
  EXPECT_GT(n["opencl"], 0);
  for (const auto& r : recs) {
    // raw_gbs / gbs is raw_bytes / min_bytes: the two figures share the median.
    ASSERT_TRUE(r.contains("raw_gbs") && r.contains("raw_bytes")) << describe(r);
    EXPECT_NEAR(r["raw_gbs"].get<double>() / r["gbs"].get<double>(),
                r["raw_bytes"].get<double>() / r["min_bytes"].get<double>(), 1e-9);
    EXPECT_GE(r["raw_bytes"].get<double>(), r["min_bytes"].get<double>()) << describe(r);
  }
}

TEST(CopyStrided, SizesParseToEveryCombination) {
  const auto s = find_op("copy_strided").parse_sizes("100,200@stride=1:4:*2@offset=0,3");
  ASSERT_EQ(s.size(), 2u * 3u * 2u);
  EXPECT_EQ(s.back().at("n"), 200);
  EXPECT_EQ(s.back().at("stride"), 4);
  EXPECT_EQ(s.back().at("offset"), 3);
  EXPECT_EQ(find_op("copy_strided").parse_sizes("64").at(0).at("stride"), 1);
  // Long lists times each other are refused rather than built.
  EXPECT_THROW(find_op("copy_strided").parse_sizes("1:60000:1@offset=0,1"), Error);
}

TEST(CopyStrided, RawBytesCountSectorsPerWarp) {
  // Aligned and contiguous: nothing beyond the useful bytes.
  EXPECT_EQ(raw("1024", Precision::S, 32), 2.0 * 1024 * 4);
  // Stride 8 in S: every read its own 32-byte sector; the writes stay contiguous.
  EXPECT_EQ(raw("1024@stride=8", Precision::S, 32), 1024.0 * 32 + 1024 * 4);
  // Stride 2 in D on 64-byte lines: 4 elements a line; one warp = 8 lines.
  EXPECT_EQ(raw("32@stride=2", Precision::D, 64), 8.0 * 64 + 4 * 64);
  // One warp, offset 1 in S: elements 1..32 span bytes 4..131, five sectors.
  EXPECT_EQ(raw("32@offset=1", Precision::S, 32), 5.0 * 32 + 4 * 32);
}

TEST(CopyStrided, BadOffsetsAndStridesAreRefused) {
  expect_bad_input("run copy_strided --device host --size 100@offset=33", "copy_strided offset = 33 is out of range");
  expect_bad_input("run copy_strided --device host --size 100@stride=0", "copy_strided stride = 0 is out of range");
  expect_bad_input("run copy_strided --device host --size 100@stride=65", "stride = 65 is out of range");
  expect_bad_input("run copy_strided --device host --size 100@pitch=2", "malformed copy_strided size '100@pitch=2'");
  expect_bad_input("run copy_strided --device host --size 100@stride=2@stride=4", "malformed copy_strided size");
  expect_bad_input("run copy_strided --device host --size 0", "n = 0 is impossible");
  // The last index read lies beyond any allocation the host can make.
  expect_bad_input("run copy_strided --device host --size 2^39@offset=7@stride=64",
                   "offset 7 and stride 64 put the last element read at index 35184372088775");
}

TEST(CopyStrided, DeviceFitNamesTheOffsetAndStride) {
  const Op& op = find_op("copy_strided");
  const auto s = op.parse_sizes("1000@offset=3@stride=10").at(0);
  // x holds 3 + 999*10 + 1 = 9994 elements: 39976 bytes in S.
  EXPECT_EQ(op.device_fit(s, Precision::S, device_with(1 << 20, 39976)), "");
  EXPECT_THAT(op.device_fit(s, Precision::S, device_with(1 << 20, 39975)),
              testing::HasSubstr("offset 3 and stride 10 put the last element read at index 9993"));
}
