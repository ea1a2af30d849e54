// seismic: every host and OpenCL variant validates on seeded wave fields and media in every
// shipped layout (docs/layouts.md) at extents that are no multiple of the work-group's,
// including one-row and one-column grids; sizes and bad layouts are one clear error each.
#include <fstream>

#include "ops/layout_problem.hpp"
#include "layout_sweep.hpp"

using namespace hetbench;
using namespace hetbench::test;

TEST(Seismic, EveryVariantValidatesInEveryShippedLayout) {
  validate_every_layout("seismic", "1,37x19", "1x3,37x19,65x3", 4);  // the first without a layout: every field its own array
}

TEST(Seismic, EightFieldsInOneOperand) {
  const Op& op = find_op("seismic");
  const auto s = op.parse_sizes("7x5@soaos").at(0);
  EXPECT_EQ(s.at("n"), 35);
  auto p = op.make_problem(s, Precision::D, 5);
  EXPECT_EQ(p->array("cell").count, 35u * 8);
  EXPECT_EQ(p->flops, 32.0 * 35);
  const auto& pre = dynamic_cast<const LayoutProblem&>(*p).source_prelude;
  EXPECT_NE(pre.find("typedef struct { REAL sxx; REAL szz; REAL sxz; } hb_cell_stress_t;"), std::string::npos) << pre;
}

TEST(Seismic, BadInput) {
  expect_bad_input("run seismic --device host --size 3x0", "seismic needs every extent >= 1");
  expect_bad_input("run seismic --device host --size 3x3x3", "malformed seismic size '3x3x3': expected NX or NXxNZ");
  expect_bad_input("run seismic --device host --size 8 --param LAYOUT=" + source_dir() + "/layouts/srad/aos.layout",
                   "op seismic has no field 'J'");
  TempDir tmp;
  const auto p = tmp.path() / "two.layout";
  std::ofstream(p) << "Arch a\nStruct v Field fp vx Field fp vz\nStruct s Field fp sxx Field fp vx\n";
  expect_bad_input("run seismic --device host --size 8 --layout " + p.string(),
                   "two.layout:3: 'vx': field vx is in two structs (also at line 2)");
}
