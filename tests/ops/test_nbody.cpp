// nbody: every host and OpenCL variant validates on seeded bodies for every shipped layout
// (docs/layouts.md) at sizes that are no multiple of the work-group size, and layout files
// that do not fit the op or the device are one clear error each (exit 2).
#include <filesystem>
#include <cstring>
#include <fstream>
#include <limits>

#include "ops/layout_problem.hpp"
#include "variant_sweep.hpp"

using namespace hetbench;
using namespace hetbench::test;

namespace {

std::vector<std::string> shipped_layouts() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(data_dir("layouts")) / "nbody"))
    out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string pocl_device() {
  for (const auto& d : all_devices())
    if (d->info().backend == BackendKind::OpenCL && d->info().type == "cpu") return d->id();
  return "";
}

}  // namespace

TEST(Nbody, EveryVariantValidatesInEveryShippedLayout) {
  const auto layouts = shipped_layouts();
  ASSERT_GE(layouts.size(), 5u);
  std::vector<std::string> sizes{"1,7,300"};  // no layout: every field its own array
  for (const auto& l : layouts) sizes.push_back("1,45,300@" + l);
  const auto recs = validate_every_variant("nbody", sizes);
  std::set<std::string> seen;
  for (const auto& r : recs) seen.insert(r["features"].value("layout", ""));
  EXPECT_EQ(seen.size(), layouts.size());  // no layout named is "soa", as the shipped soa
  const auto n = by_backend(recs);
  EXPECT_GT(n.count("host") ? n.at("host") : 0, 0);
  if (!pocl_device().empty()) EXPECT_GT(n.count("opencl") ? n.at("opencl") : 0, 0);
}

// The same bodies in two layouts give the same accelerations' reference: the layout only
// moves words. A kernel that read a field at the wrong place would fail validation above.
TEST(Nbody, LayoutMovesWordsNotValues) {
  const Op& op = find_op("nbody");
  auto a = op.make_problem(op.parse_sizes("37@aos").at(0), Precision::S, 9);
  auto b = op.make_problem(op.parse_sizes("37@aosoa").at(0), Precision::S, 9);
  EXPECT_NE(a->array("body").host, b->array("body").host);
  EXPECT_EQ(a->array("body").count, 37u * 4);
  EXPECT_EQ(b->array("body").count, 64u * 4);  // whole 32-record blocks
  EXPECT_EQ(a->flops, 20.0 * 37 * 37);
  EXPECT_NE(dynamic_cast<const LayoutProblem&>(*a).source_prelude.find("#define BODY_X(i)"), std::string::npos);
}

TEST(Nbody, BadLayoutsAreOneClearError) {
  TempDir tmp;
  auto write = [&](const std::string& name, const std::string& text) {
    const auto p = tmp.path() / name;
    std::ofstream(p) << text;
    return p.string();
  };
  expect_bad_input("run nbody --device host --size 10 --layout " + write("two.layout", "Arch a\nStruct s Field fp x\nStruct t Field fp x\n"),
                   "two.layout:3: 'x': field x is in two structs (also at line 2)");
  expect_bad_input("run nbody --device host --size 10 --layout " + write("ty.layout", "Arch a\nStruct s Field hp x\n"),
                   "ty.layout:2: 'hp': unknown field type");
  expect_bad_input("run nbody --device host --size 10 --layout " + write("op.layout", "Arch a\nStruct s Field fp rho Field fp u\n"),
                   "op.layout:2: 'rho': op nbody has no field 'rho'");
  expect_bad_input("run nbody --device host --size 10 --param LAYOUT=nosuch",
                   "layout 'nosuch' is neither a file nor a layout shipped for op nbody");
  const std::string dev = pocl_device();
  if (dev.empty()) return;
  expect_bad_input("run nbody --device " + dev + " --size 10 --layout " +
                       write("big.layout", "Arch a\nScratchpad local Field fp x 100000000 1\n"),
                   "big.layout: the scratchpad tiles need 400000000 bytes of local memory per work-group, more than");
}

// Above n^2 = 2^30 the reference covers a seeded sample of 4096 bodies, but every output
// is still looked at: a poisoned or NaN acceleration anywhere fails the point.
TEST(Nbody, SampledValidationStillSeesEveryOutput) {
  const Op& op = find_op("nbody");
  const long long n = 32771;
  auto prob = op.make_problem(op.parse_sizes(std::to_string(n)).at(0), Precision::S, 5);
  const auto& acc = prob->array("acc");
  Outputs out{{"acc", hetbench::Bytes(acc.count * sizeof(float), 0xFF)}};
  auto v = op.validate(*prob, out);
  EXPECT_EQ(v.checked, 3u * 4096);
  EXPECT_EQ(v.unwritten, 3u * n);
  EXPECT_NE(v.note.find("sample of 4096 of 32771 bodies"), std::string::npos) << v.note;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t at : {std::size_t{1}, acc.count / 2, acc.count - 2}) std::memcpy(out["acc"].data() + at * sizeof(float), &nan, sizeof nan);
  v = op.validate(*prob, out);
  EXPECT_EQ(v.nan, 3u);
  EXPECT_EQ(v.unwritten, 3u * n - 3);
  EXPECT_FALSE(v.passed());
}
