// srad: every host and OpenCL variant validates on seeded images in every shipped layout
// (docs/layouts.md) at extents that are no multiple of the work-group's, including a
// one-row image and a one-column image whose neighbours are half clamped; sizes and bad
// layouts are one clear error each (exit 2).
#include <cmath>
#include <cstring>
#include <fstream>

#include "ops/layout_problem.hpp"
#include "layout_sweep.hpp"

using namespace hetbench;
using namespace hetbench::test;

TEST(Srad, EveryVariantValidatesInEveryShippedLayout) {
  validate_every_layout("srad", "2x1,37x19", "1x3,37x19,65x3", 4);  // the first without a layout: every field its own array
}

// The six fields live in one operand: AoS interleaves them, and the derived fields start as
// poison (kernel 1 writes them; the engine restores the poison before every run).
TEST(Srad, OneOperandOfSixFields) {
  const Op& op = find_op("srad");
  auto a = op.make_problem(op.parse_sizes("5x3@aos").at(0), Precision::S, 7);
  auto b = op.make_problem(op.parse_sizes("5x3@soa").at(0), Precision::S, 7);
  const auto& ha = a->array("img").host;
  ASSERT_EQ(a->array("img").count, 15u * 6);
  EXPECT_NE(ha, b->array("img").host);
  float j0, d0;
  std::memcpy(&j0, ha.data(), 4);
  std::memcpy(&d0, ha.data() + 4, 4);
  EXPECT_GE(j0, 1.0f / 16);
  EXPECT_TRUE(std::isnan(d0));
  EXPECT_GT(a->scalar("q0sqr")->value, 0.0);
  EXPECT_NE(dynamic_cast<const LayoutProblem&>(*a).source_prelude.find("#define IMG_DN(i)"), std::string::npos);
}

TEST(Srad, SizesAndBadInput) {
  const auto s = find_op("srad").parse_sizes("4x3,5@aos");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].at("n"), 12);
  EXPECT_EQ(s[1].at("ny"), 5);
  EXPECT_EQ(s[1].input, "aos");
  expect_bad_input("run srad --device host --size 1", "srad needs at least 2 pixels");
  expect_bad_input("run srad --device host --size 4x0", "srad needs every extent >= 1");
  expect_bad_input("run srad --device host --size 4x4x4", "malformed srad size '4x4x4': expected NX or NXxNY");
  expect_bad_input("run srad --device host --size 8 --param LAYOUT=" + source_dir() + "/layouts/nbody/aos.layout",
                   "op srad has no field 'x'");
  TempDir tmp;
  const auto p = tmp.path() / "sp.layout";
  std::ofstream(p) << "Arch gpu\nScratchpad local Field fp c 64 1\n";
  expect_bad_input("run srad --device host --size 8 --layout " + p.string(),
                   "sp.layout:2: 'c': op srad stages no field in local memory");
}
