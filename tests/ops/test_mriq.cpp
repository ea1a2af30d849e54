// mriq: every host and OpenCL variant validates on seeded k-space samples and voxels in
// every shipped layout (docs/layouts.md), with voxel and sample counts that are no multiple
// of the work-group or the tile size; sizes and bad layouts are one clear error each.
#include <fstream>

#include "ops/layout_problem.hpp"
#include "layout_sweep.hpp"

using namespace hetbench;
using namespace hetbench::test;

TEST(Mriq, EveryVariantValidatesInEveryShippedLayout) {
  validate_every_layout("mriq", "1,7x300", "1,45x33,300x517", 6);  // the first without a layout: every field its own array
}

// Two record counts: the k-space accessors find their regions from nk, the voxels' from n.
TEST(Mriq, SamplesAndVoxelsHaveTheirOwnCounts) {
  const Op& op = find_op("mriq");
  const auto s = op.parse_sizes("37x101@aosoa").at(0);
  EXPECT_EQ(s.at("n"), 37);
  EXPECT_EQ(s.at("nk"), 101);
  auto p = op.make_problem(s, Precision::D, 3);
  EXPECT_EQ(p->array("kspace").count, 128u * 6);  // whole 32-record blocks
  EXPECT_EQ(p->array("vox").count, 64u * 3);
  EXPECT_EQ(p->array("q").count, 37u * 2);
  EXPECT_EQ(p->flops, 10.0 * 37 * 101 + 3.0 * 101);
  auto q = op.make_problem(op.parse_sizes("37x101@soaos").at(0), Precision::D, 3);
  const auto& pre = dynamic_cast<const LayoutProblem&>(*q).source_prelude;
  // phiR after nk records of Parboil's 4-field kValues, qi after n of qr
  EXPECT_NE(pre.find("#define KSPACE_PHIR(i) (kspace[((nk + 0) / 1 * 4) + (i)])"), std::string::npos) << pre;
  EXPECT_NE(pre.find("#define Q_QI(i) (q[((n + 0) / 1 * 1) + (i)])"), std::string::npos) << pre;
}

TEST(Mriq, BadInput) {
  expect_bad_input("run mriq --device host --size 0x5", "mriq needs every extent >= 1");
  expect_bad_input("run mriq --device host --size 8 --param LAYOUT=" + source_dir() + "/layouts/nbody/aos.layout",
                   "op mriq has no field 'm'");
  TempDir tmp;
  const auto p = tmp.path() / "vox.layout";
  std::ofstream(p) << "Arch gpu\nScratchpad local Field fp kx 64 1\nScratchpad local Field fp x 64 1\n";
  expect_bad_input("run mriq --device host --size 8 --layout " + p.string(),
                   "vox.layout:3: 'x': op mriq stages only fields of kspace in local memory, not x of vox");
}
