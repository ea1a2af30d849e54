// stencil3d: every host and OpenCL variant validates on seeded grids in every shipped
// layout (docs/layouts.md), at extents that are no multiple of the work-group's, including
// flat and single-voxel grids whose neighbours are all clamped.
#include <filesystem>

#include "variant_sweep.hpp"

using namespace hetbench;
using namespace hetbench::test;

TEST(Stencil3d, EveryVariantValidatesInEveryShippedLayout) {
  std::vector<std::string> sizes{"1,37x19x5"};
  std::size_t layouts = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(data_dir("layouts")) / "stencil3d")) {
    sizes.push_back("1x1x3,37x19x5,65x3x2@" + e.path().stem().string());
    ++layouts;
  }
  ASSERT_GE(layouts, 4u);
  const auto recs = validate_every_variant("stencil3d", sizes);
  std::set<std::string> seen;
  for (const auto& r : recs) seen.insert(r["features"].value("layout", ""));
  EXPECT_EQ(seen.size(), layouts);  // no layout named is "soa", as the shipped soa
  EXPECT_GT(by_backend(recs)["host"], 0);
}

TEST(Stencil3d, SizesAndBadInput) {
  const auto s = find_op("stencil3d").parse_sizes("4x3x2,5@aos");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].at("n"), 24);
  EXPECT_EQ(s[1].at("nz"), 5);
  EXPECT_EQ(s[1].input, "aos");
  expect_bad_input("run stencil3d --device host --size 4x0x2", "stencil3d needs every extent >= 1");
  expect_bad_input("run stencil3d --device host --size 2^62x2^62x2", "grid would have more than 2^40 points");
  expect_bad_input("run stencil3d --device host --size 4x4x4 --param LAYOUT=" + source_dir() + "/layouts/nbody/aos.layout",
                   "op stencil3d has no field 'x'");
}
