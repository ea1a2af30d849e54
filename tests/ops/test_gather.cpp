// gather: every host and OpenCL variant validates exactly, gathering and scattering, for
// each index pattern at sizes that are not multiples of the work-group size; the index
// array is a seeded permutation; bad sizes are refused.
#include <algorithm>

#include <fmt/format.h>

#include "variant_sweep.hpp"

using namespace hetbench;
using namespace hetbench::test;

namespace {

std::vector<std::uint32_t> idx_of(const std::string& token, std::uint64_t seed) {
  const Op& op = find_op("gather");
  auto prob = op.make_problem(op.parse_sizes(token).at(0), Precision::S, seed);
  const auto& a = prob->array("idx");
  std::vector<std::uint32_t> v(a.count);
  std::memcpy(v.data(), a.host.data(), a.bytes());
  return v;
}

}  // namespace

TEST(Gather, EveryVariantValidatesOnHostAndPocl) {
  std::vector<std::string> sizes;
  for (const char* dir : {"gather", "scatter"})
    for (const char* pat : {"sorted", "random", "blocked=1,16,5000"})
      sizes.push_back(fmt::format("1,4097,2^16+7@{}@{}", pat, dir));
  auto recs = validate_every_variant("gather", sizes, {{Precision::S, Precision::D}, 1, 0.0});
  auto n = by_backend(recs);
  EXPECT_GT(n["host"], 0);
  EXPECT_GT(n["opencl"], 0);
  for (const auto& r : recs) EXPECT_TRUE(r.contains("raw_gbs")) << describe(r);
}

TEST(Gather, IndicesArePermutationsOfTheirPattern) {
  const auto sorted = idx_of("1000@sorted", 3);
  for (std::uint32_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], i);
  for (const char* t : {"1003@random", "1003@blocked=16"}) {
    auto v = idx_of(t, 3);
    EXPECT_NE(v, idx_of(t, 4)) << t << ": the seed must change the permutation";
    std::sort(v.begin(), v.end());
    for (std::uint32_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i) << t << " is not a permutation";
  }
  // Blocked: runs of 16 consecutive indices starting on a multiple of 16.
  const auto b = idx_of("1003@blocked=16", 3);
  for (std::size_t i = 0; i < 992; ++i) {
    EXPECT_EQ(b[i] % 16, i % 16);
    if (i % 16) EXPECT_EQ(b[i], b[i - 1] + 1);
  }
}

TEST(Gather, RawBytesCountSectorsPerWarp) {
  const Op& op = find_op("gather");
  auto raw = [&](const std::string& t) {
    return op.make_problem(op.parse_sizes(t).at(0), Precision::D, 9)->raw_bytes(32);
  };
  // Sorted: everything contiguous, the useful bytes (n = 4096, 8-byte x and y, 4-byte idx).
  EXPECT_EQ(raw("4096@sorted"), 4096.0 * 20);
  // Blocked by 4 doubles = 32 bytes: one sector per run; the same count as contiguous.
  EXPECT_EQ(raw("4096@blocked=4@scatter"), 4096.0 * 20);
  // Random: nearly a sector per element read (a warp's 32 reads rarely share one).
  EXPECT_GT(raw("4096@random"), 4096.0 * (8 + 4 + 28));
}

TEST(Gather, BadSizesAreRefused) {
  expect_bad_input("run gather --device host --size 100@blocked", "malformed gather size '100@blocked'");
  expect_bad_input("run gather --device host --size 100@random@sorted", "malformed gather size");
  expect_bad_input("run gather --device host --size 100@blocked=0", "gather block = 0 is out of range");
  expect_bad_input("run gather --device host --size 2^31", "gather needs 1 <= n < 2^31");
}
