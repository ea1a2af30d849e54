// Layout files (src/ops/layout*.cpp): the text grammar and its JSON equivalent, each bad
// input as one error naming file, line and token, placement and conversion, and the
// generated accessors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <set>

#include "hetbench/error.hpp"
#include "engine/record/results.hpp"
#include "hetbench/device.hpp"
#include "ops/layout.hpp"
#include "ops/layout_arch.hpp"
#include "test_util.hpp"

using namespace hetbench;
using testing::HasSubstr;

namespace {

const FieldSet kFields{{"body", {"x", "y", "z", "m"}, false}, {"acc", {"ax", "ay", "az"}, false}};

Layout resolve_text(const std::string& text) {
  return resolve_layout(parse_layout_text(text, "t.layout"), 0, kFields, "nbody");
}

// The message of the InputError that parsing and resolving `text` throws.
std::string error_of(const std::string& text, bool json = false) {
  try {
    auto f = json ? parse_layout_json(text, "t.json") : parse_layout_text(text, "t.layout");
    resolve_layout(f, 0, kFields, "nbody");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Layout, ParsesThePapersGrammarAndTheExtension) {
  const auto f = parse_layout_text(
      "# comment\nArch gpu\nStruct pos Field fp x Field fp y\n  Field fp z\nAoSoA acc 8 Field dp ax Field dp ay\n"
      "Scratchpad local Field fp m 128 34\nArch cpu\nStruct all Field fp x Field fp m\n",
      "t.layout");
  ASSERT_EQ(f.archs.size(), 2u);
  const auto& a = f.archs[0];
  EXPECT_EQ(a.arch, "gpu");
  ASSERT_EQ(a.structs.size(), 2u);
  EXPECT_EQ(a.structs[0].fields.size(), 3u);  // a struct's fields may continue on the next line
  EXPECT_EQ(a.structs[0].fields[2].line, 4);
  EXPECT_EQ(a.structs[0].block, 0u);
  EXPECT_EQ(a.structs[1].block, 8u);
  EXPECT_EQ(a.structs[1].fields[0].type, FieldType::dp);
  ASSERT_EQ(a.scratch.size(), 1u);
  EXPECT_EQ(a.scratch[0].tile, 128u);
  EXPECT_EQ(a.scratch[0].at, 34);
  EXPECT_EQ(f.archs[1].structs[0].name, "all");
}

TEST(Layout, JsonIsTheSameLayout) {
  const std::string text = "Arch gpu\nStruct pos Field fp x Field fp y\nAoSoA acc 4 Field fp ax Field fp az\n"
                           "Scratchpad local Field fp m 64 7\n";
  const auto t = parse_layout_text(text, "t.layout");
  const auto j = parse_layout_json(to_json_text(t), "t.json");
  EXPECT_EQ(to_json_text(t), to_json_text(j));
  EXPECT_EQ(resolve_layout(t, 0, kFields, "nbody").describe(), resolve_layout(j, 0, kFields, "nbody").describe());
}

TEST(Layout, EveryErrorNamesFileLineAndToken) {
  EXPECT_THAT(error_of("Arch gpu\nStruct a Field fp x\nStruct b Field fp y Field fp x\n"),
              HasSubstr("t.layout:3: 'x': field x is in two structs (also at line 2)"));
  EXPECT_THAT(error_of("Arch gpu\nStruct a Field fq x\n"), HasSubstr("t.layout:2: 'fq': unknown field type"));
  EXPECT_THAT(error_of("Arch gpu\nStruct a Field fp q\n"),
              HasSubstr("t.layout:2: 'q': op nbody has no field 'q' (its fields: x, y, z, m, ax, ay, az)"));
  EXPECT_THAT(error_of("Arch gpu\nStruct a Field ip x\n"), HasSubstr("t.layout:2: 'ip': field x of op nbody is real"));
  EXPECT_THAT(error_of("Arch gpu\nStruct a Field fp x Field fp ax\n"),
              HasSubstr("t.layout:2: 'ax': struct a mixes fields of operands body and acc"));
  EXPECT_THAT(error_of("Struct a Field fp x\n"), HasSubstr("t.layout:1: 'Struct': the file must start with 'Arch NAME'"));
  EXPECT_THAT(error_of("Arch gpu\nStrukt a Field fp x\n"), HasSubstr("t.layout:2: 'Strukt': expected Arch, Struct"));
  EXPECT_THAT(error_of("Arch gpu\nStruct a\n"), HasSubstr("t.layout:2: 'Struct': Struct 'a' has no 'Field TYPE NAME'"));
  EXPECT_THAT(error_of("Arch gpu\nAoSoA a 0 Field fp x\n"), HasSubstr("t.layout:2: '0': expected the block width"));
  EXPECT_THAT(error_of("Arch gpu\nScratchpad global Field fp x 8 1\n"), HasSubstr("t.layout:2: 'global': expected 'local'"));
  EXPECT_THAT(error_of("Arch gpu\nScratchpad local Field fp x 8\n"), HasSubstr("t.layout:2: '8': expected the LINE after the tile size, but the file ends here"));
  EXPECT_THAT(error_of("Arch gpu\nScratchpad local Field fp x 8 1\nScratchpad local Field fp y 16 1\n"),
              HasSubstr("t.layout:3: '16': tile 16 differs from the 8 of field x"));
  EXPECT_THAT(error_of("Arch gpu\nStruct a Field fp x\nStruct a Field fp y\n"),
              HasSubstr("t.layout:3: 'a': struct a is already defined at line 2"));
  EXPECT_THAT(error_of("# nothing\n"), HasSubstr("t.layout:1: empty layout file"));
  EXPECT_THAT(error_of(R"({"archs": [{"arch": "g", "structs": [{"name": "a", "fields": [{"type": "xp", "name": "x"}]}]}]})", true),
              HasSubstr("t.json: archs[0].structs[0].fields[0].type: 'xp': unknown field type"));
  EXPECT_THAT(error_of(R"({"archs": [{"arch": "g", "structs": [{"name": "a", "block": 0, "fields": []}]}]})", true),
              HasSubstr("t.json: archs[0].structs[0]: key 'block' must be a positive integer"));
  EXPECT_THAT(error_of(R"({"archs": []})", true), HasSubstr("t.json: key 'archs' must be a non-empty array"));
  EXPECT_THAT(error_of("{", true), HasSubstr("t.json: invalid JSON"));
}

TEST(Layout, FieldsInNoStructStaySeparateArrays) {
  const auto l = resolve_text("Arch any\nStruct pos Field fp x Field fp z\n");
  const auto& b = l.operand("body");
  ASSERT_EQ(b.groups.size(), 3u);  // pos{x,z}, y, m
  EXPECT_TRUE(b.groups[0].is_struct);
  EXPECT_EQ(b.groups[1].fields, std::vector<std::string>{"y"});
  EXPECT_EQ(b.groups[2].fields, std::vector<std::string>{"m"});
  EXPECT_EQ(l.operand("acc").groups.size(), 3u);
  const std::size_t n = 13;
  EXPECT_EQ(b.word("x", 5, n), 10u);
  EXPECT_EQ(b.word("z", 5, n), 11u);
  EXPECT_EQ(b.word("y", 5, n), 2 * n + 5);
  EXPECT_EQ(b.word("m", 0, n), 3 * n);
  EXPECT_EQ(b.words(n), 4 * n);
}

// Every field of every shape goes to its own words and comes back unchanged, for a size
// that is no multiple of the block.
TEST(Layout, ConversionRoundTripsAndFillsEveryWordOnce) {
  for (const char* text : {"Arch a\n", "Arch a\nStruct s Field fp x Field fp y Field fp z Field fp m\n",
                           "Arch a\nAoSoA s 8 Field fp x Field fp m\nAoSoA t 3 Field fp y\n"}) {
    const auto l = resolve_text(text);
    const auto& b = l.operand("body");
    const std::size_t n = 37;
    std::mt19937 rng(11);
    std::vector<std::vector<float>> f(4, std::vector<float>(n));
    for (auto& v : f)
      for (auto& x : v) x = std::uniform_real_distribution<float>(-1, 1)(rng);
    std::vector<float> buf(b.words(n), 1e30f);
    const char* names[4] = {"x", "y", "z", "m"};
    for (int k = 0; k < 4; ++k)
      scatter_field(b, names[k], n, 4, reinterpret_cast<const unsigned char*>(f[k].data()),
                    reinterpret_cast<unsigned char*>(buf.data()));
    std::size_t written = 0;
    for (float w : buf) written += w != 1e30f;
    EXPECT_EQ(written, 4 * n) << text;
    for (int k = 0; k < 4; ++k) {
      std::vector<float> back(n);
      gather_field(b, names[k], n, 4, reinterpret_cast<const unsigned char*>(buf.data()),
                   reinterpret_cast<unsigned char*>(back.data()));
      EXPECT_EQ(back, f[k]) << text << names[k];
      const auto v = field_view(b, names[k], n, buf.data());
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(v[i], f[k][i]) << text << names[k] << i;
    }
  }
}

TEST(Layout, AccessorsForStructsBlocksAndScratchpad) {
  const auto l = resolve_text("Arch g\nStruct pos Field fp x Field fp y\nAoSoA a 16 Field fp ax Field fp ay\n"
                              "Scratchpad local Field fp x 128 3\n");
  const auto s = layout_accessors(l, kFields);
  EXPECT_THAT(s, HasSubstr("typedef struct { REAL x; REAL y; } hb_body_pos_t;"));
  EXPECT_THAT(s, HasSubstr("#define BODY_X(i) (((HB_GLOBAL_PTR hb_body_pos_t*)(body + (0)))[(i)].x)"));
  EXPECT_THAT(s, HasSubstr("#define BODY_Z(i) (body[((n + 0) / 1 * 2) + (i)])"));
  EXPECT_THAT(s, HasSubstr("typedef struct { REAL ax[16]; REAL ay[16]; } hb_acc_a_t;"));
  EXPECT_THAT(s, HasSubstr("[(i) / 16].ay[(i) % 16])"));
  EXPECT_THAT(s, HasSubstr("#define HB_SP_TILE 128"));
  EXPECT_THAT(s, HasSubstr("typedef struct { REAL x; } hb_sp_t;"));
  EXPECT_THAT(s, HasSubstr("HB_LOCAL_MEM hb_sp_t hb_sp[128];"));
  EXPECT_THAT(s, HasSubstr("#define TILE_BODY_X(j, src) (hb_sp[(j)].x)"));
  EXPECT_THAT(s, HasSubstr("#define TILE_BODY_Y(j, src) BODY_Y(src)"));
  EXPECT_EQ(l.scratch_bytes(4), 512u);
}

// One file, a layout per architecture (Majeti et al.): a device takes the section named
// after its most specific name, whatever the order of the sections.
TEST(LayoutArch, TheMostSpecificNameWins) {
  DeviceInfo h200;
  h200.id = "cuda:0";
  h200.backend = BackendKind::Cuda;
  h200.type = "gpu";
  h200.vendor = "NVIDIA Corporation";
  h200.extra = {{"compute_capability", "9.0"}, {"architecture", "hopper"}};
  auto pick = [](const std::string& text, const DeviceInfo& d) {
    return match_arch(parse_layout_text(text, "t.layout"), d);
  };
  const std::string body = "\nStruct all Field fp x Field fp y Field fp z Field fp m\n";
  auto m = pick("Arch any" + body + "Arch gpu" + body + "Arch Hopper" + body + "Arch nvidia" + body, h200);
  EXPECT_TRUE(m.matched);
  EXPECT_EQ(m.index, 2u);
  EXPECT_THAT(m.why, HasSubstr("Arch 'Hopper' of t.layout: cuda:0 answers to 'hopper' (an NVIDIA hopper GPU, compute capability 9.0)"));
  m = pick("Arch cpu" + body + "Arch sm_90" + body, h200);
  EXPECT_EQ(m.index, 1u);
  m = pick("Arch any" + body + "Arch gpu" + body, h200);
  EXPECT_EQ(m.index, 1u);
  EXPECT_THAT(m.why, HasSubstr("its type is gpu"));
  m = pick("Arch nvidia" + body + "Arch cuda" + body, h200);
  EXPECT_EQ(m.index, 1u) << "the API is more specific than the vendor";
  m = pick("Arch amd" + body + "Arch cpu" + body, h200);
  EXPECT_FALSE(m.matched);
  EXPECT_EQ(m.index, 0u);
  EXPECT_THAT(m.why, HasSubstr("no Arch section of t.layout names cuda:0 (it answers to hopper, sm_90, cuda, nvidia, "
                               "gpu, any): its first section, 'amd', is measured there"));
  // The host answers to its API before its SIMD level (which PoCL, on the same CPU, shares)
  // and its type.
  const auto host = resolve_devices("host").front();
  m = pick("Arch cpu" + body + "Arch host" + body, host->info());
  EXPECT_EQ(m.index, 1u) << m.why;
  const auto names = arch_names(host->info());
  EXPECT_EQ(names.front().name, "host");
  EXPECT_EQ(names.back().name, "any");
}

// `run nbody --size N@FILE` with a file of three sections: the host, PoCL (and a GPU, on
// the GPU run) each measure their own section, and the record says which and why; FILE#*
// measures every section on every device, FILE#NAME one section, a missing one is bad input.
TEST(LayoutArch, EachDeviceMeasuresItsOwnSection) {
  test::TempDir d;
  const std::string body = "\nStruct all Field fp x Field fp y Field fp z Field fp m\n";
  test::write_text(d.path() / "three.layout", "Arch gpu" + body + "Arch opencl\nStruct pos Field fp x Field fp y Field fp z\n" +
                                                 "Arch host\nAoSoA b 8 Field fp x Field fp y Field fp z Field fp m\n");
  const std::string file = (d.path() / "three.layout").string();
  std::string devices = "host";
  try {
    resolve_devices("opencl:0:0");
    devices += ",opencl:0:0";
  } catch (const Error&) {
  }
  auto r = test::run_hetbench("run nbody --device " + devices + " --precision S --size 1000@" + file + " --reps 2 --out " +
                              (d.path() / "a").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto recs = read_results(test::only_experiment(d.path() / "a"));
  ASSERT_FALSE(recs.empty());
  for (const auto& rec : recs) {
    EXPECT_EQ(rec["status"], "ok") << test::describe(rec);
    const std::string want = rec["device"] == "host" ? "host" : "opencl";
    EXPECT_EQ(rec["features"]["layout_arch"], want) << test::describe(rec);
    EXPECT_EQ(rec["sizes"]["input"], file + "#" + want);
    EXPECT_THAT(rec["param_source"]["LAYOUT"].get<std::string>(),
                HasSubstr("Arch '" + want + "' of " + file + ": " + rec["device"].get<std::string>() + " answers to '" + want +
                          "' (it runs through " + want + ")"));
  }
  r = test::run_hetbench("run nbody --device host --variant omp --precision S --size 100@" + file + "#* --reps 1 --out " +
                         (d.path() / "b").string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::set<std::string> archs;
  for (const auto& rec : read_results(test::only_experiment(d.path() / "b"))) archs.insert(rec["features"]["layout_arch"]);
  EXPECT_EQ(archs, (std::set<std::string>{"gpu", "opencl", "host"}));
  r = test::run_hetbench("run nbody --device host --variant omp --precision S --size 100@" + file + "#gpu --reps 1 --out " +
                         (d.path() / "c").string());
  ASSERT_EQ(r.status, 0) << r.output;
  for (const auto& rec : read_results(test::only_experiment(d.path() / "c"))) EXPECT_EQ(rec["features"]["layout_arch"], "gpu");
  r = test::run_hetbench("run nbody --device host --precision S --size 100@" + file + "#tpu --out " + (d.path() / "e").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("has no 'Arch tpu' section (it has gpu, opencl, host; '#*' measures each)"));
  // No section names the device: the first is measured, and the run says so once.
  test::write_text(d.path() / "none.layout", "Arch fpga" + body + "Arch tpu" + body);
  r = test::run_hetbench("run nbody --device host --variant omp --precision S --size 100@" + (d.path() / "none.layout").string() +
                         " --reps 1 --out " + (d.path() / "f").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no Arch section of"));
  EXPECT_THAT(r.output, HasSubstr("its first section, 'fpga', is measured there"));
}

// `tune --write-layout FILE`: the layout the search found best on a device becomes that
// device's section of FILE (replaced, not repeated, by a second tuning), which a run then
// takes; the sections of a many-section input file are the tuning space.
TEST(LayoutArch, TuneWritesEachDevicesWinnerAsItsSection) {
  test::TempDir d;
  const std::string cand = (d.path() / "cand.layout").string(), out = (d.path() / "out.layout").string();
  test::write_text(cand, "Arch blocks\nAoSoA b 8 Field fp x Field fp y Field fp z Field fp m\n"
                         "Arch pos\nStruct pos Field fp x Field fp y Field fp z\n");
  const std::string tune = "tune nbody --device host --variant host/nbody/omp --precision S --size 200@" + cand +
                           " --param THREADS=1 --strategy exhaustive --reps 3 --warmup 1 --db " +
                           (d.path() / "t.db").string() + " --write-layout " + out + " --out ";
  auto r = test::run_hetbench(tune + (d.path() / "t1").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("into " + out + " as 'Arch host'"));
  const auto exp = test::read_json(test::only_experiment(d.path() / "t1") / "experiment.json");
  ASSERT_EQ(exp["tuning"].size(), 1u);
  EXPECT_EQ(exp["tuning"][0]["space"], 2) << "both sections are the space";
  const std::string won = exp["tuning"][0]["layout"]["arch"];
  const auto written = read_layout_file(out);
  ASSERT_EQ(written.archs.size(), 1u);
  EXPECT_EQ(written.archs[0].arch, "host");
  const auto source = read_layout_file(cand);
  const auto& want = source.archs[won == "blocks" ? 0 : 1];
  EXPECT_EQ(written.archs[0].structs.size(), want.structs.size());
  EXPECT_EQ(written.archs[0].structs[0].block, want.structs[0].block);
  r = test::run_hetbench(tune + (d.path() / "t2").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_layout_file(out).archs.size(), 1u) << "the section is replaced, not repeated";
  r = test::run_hetbench("run nbody --device host --variant omp --precision S --size 100@" + out + " --reps 1 --out " +
                         (d.path() / "run").string());
  ASSERT_EQ(r.status, 0) << r.output;
  for (const auto& rec : read_results(test::only_experiment(d.path() / "run")))
    EXPECT_EQ(rec["features"]["layout_arch"], "host") << test::describe(rec);
  // Bad input: an op without layouts; an existing file that is no layout file.
  r = test::run_hetbench("tune dot --device host --size 1000 --write-layout " + out);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("op dot places no records by a layout"));
  test::write_text(d.path() / "bad.layout", "Struct s Field fp x\n");
  r = test::run_hetbench("tune nbody --device host --size 100 --write-layout " + (d.path() / "bad.layout").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bad.layout:1:"));
}
