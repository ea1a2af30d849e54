// T1 files hetbench did not write: Kernel Tuner's own examples (from its source
// distribution, scripts/setup-python) and a kernel in their style (tests/data/t1_declared)
// imported without a `hetbench` block, so that the import declares the kernel's op from
// the T1 arguments; run, tuned, recorded and replayed on PoCL, run on a CUDA GPU where one
// is present, and checked where a declared op can check (every write-only element written).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "hetbench/device.hpp"
#include "interop_util.hpp"
#include "util/json_file.hpp"

using namespace hetbench;
using namespace hetbench::test;
using testing::HasSubstr;
namespace fs = std::filesystem;

namespace {

std::string examples() { return source_dir() + "/build/pyenv/kernel_tuner-examples"; }

#define REQUIRE_EXAMPLES()                                                                                  \
  if (!fs::exists(examples() + "/test_T1_input.json"))                                                      \
  GTEST_SKIP() << "no " << examples()                                                                       \
               << ": scripts/setup-python fetches Kernel Tuner's source distribution (skipped with HETBENCH_NO_PYPI=1)"

std::string fixture(const std::string& f) { return source_dir() + "/tests/data/t1_declared/" + f; }

nlohmann::json import_example(const std::string& t1, const TempDir& out) {
  const auto r = run_hetbench("kernel import-t1 " + t1 + " --out " + out.str());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("is declared from its arguments"));
  for (const auto& e : fs::directory_iterator(out.path()))
    if (e.path().extension() == ".json") return read_json(e.path());
  ADD_FAILURE() << "no metadata written in " << out.str();
  return {};
}

std::vector<nlohmann::json> records(const fs::path& root) {
  std::vector<nlohmann::json> out;
  std::ifstream f(only_experiment(root) / "results.jsonl");
  for (std::string line; std::getline(f, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(InteropT1Declared, KernelTunersOwnExamplesImportAsKernelTunerRunsThem) {
  REQUIRE_EXAMPLES();
  TempDir conv, add;
  const auto c = import_example(examples() + "/test_T1_input.json", conv);
  EXPECT_EQ(c["op"], "convolution");
  EXPECT_EQ(c["precisions"], nlohmann::json::array({"S"}));
  const auto& d = c["op_declaration"];
  EXPECT_EQ(d["problem"], (nlohmann::json{{"x", 4096}, {"y", 4096}}));
  // Sizes Kernel Tuner evaluates once with each parameter its list of values:
  // (4096 + max(filter_width) - 1)^2 and max(filter_height) * max(filter_width).
  EXPECT_EQ(d["operands"][0]["access"], "out");
  EXPECT_EQ(d["operands"][1]["count"], 4128 * 4128);
  EXPECT_EQ(d["operands"][2]["count"], 33 * 33);
  EXPECT_EQ(c["symbols"]["d_filter"], "d_filter");  // MemType Constant: its __constant__ symbol
  // The grid Kernel Tuner launches: ProblemSize over the GridDiv product, not GlobalSize.
  const auto& l = c["launches"][0];
  EXPECT_THAT(l["global"][0].get<std::string>(), HasSubstr("ceil(4096 / ((block_size_x) * (tile_size_x)))"));
  EXPECT_EQ(l["local"], nlohmann::json::array({"block_size_x", "block_size_y"}));
  EXPECT_EQ(c["defines"]["kernel_tuner"], "1");
  const std::string src = read_text_file((conv.path() / "convolution.cu").string());
  EXPECT_THAT(src, HasSubstr("extern \"C\" {"));

  const auto v = import_example(examples() + "/test_cache_file_T1_input.json", add);
  EXPECT_EQ(v["op"], "vector_add");
  EXPECT_EQ(v["launches"][0]["args"], nlohmann::json::array({"a", "b", "c", "n:int"}));
  EXPECT_EQ(v["let"]["block_size_y"], "1");  // not tuned: Kernel Tuner's default block
  EXPECT_EQ(v["op_declaration"]["operands"][3]["value"], 10000000);
}

// Kernel Tuner's examples are CUDA kernels: on a machine with a CUDA GPU (scripts/gpu-check)
// hetbench runs them, the convolution with its filter in constant memory, and tunes one.
TEST(InteropT1Declared, KernelTunersOwnExamplesRunOnCuda) {
  REQUIRE_EXAMPLES();
  try {
    if (resolve_devices("cuda:0").empty()) GTEST_SKIP() << "no CUDA device";
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  TempDir k, out, db;
  for (const char* f : {"/test_T1_input.json", "/test_cache_file_T1_input.json"}) {
    const auto r = run_hetbench("kernel import-t1 " + examples() + f + " --out " + k.str());
    ASSERT_EQ(r.status, 0) << r.output;
  }
  const std::string env = "HETBENCH_DB=" + (db.path() / "tuning.db").string();
  auto r = run_hetbench("--kernels " + k.str() + " run convolution --device cuda:0 --reps 3 --param tile_size_x=1,2 --out " +
                            (out.path() / "c").string(),
                        env);
  ASSERT_EQ(r.status, 0) << r.output;
  for (const auto& p : records(out.path() / "c")) EXPECT_EQ(p.value("status", ""), "ok") << p.dump();
  r = run_hetbench("--kernels " + k.str() + " run vector_add --device cuda:0 --reps 3 --out " + (out.path() / "v").string(),
                   env);
  EXPECT_NE(r.status, 0) << r.output;
  // ProblemSize 100 with blocks of 512: one block, so only the first 512 of the 10^7
  // elements are written, as in Kernel Tuner; a write-only vector left unwritten fails.
  const auto v = records(out.path() / "v");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].value("status", ""), "failed") << v[0].dump();
  r = run_hetbench("--kernels " + k.str() + " tune convolution --device cuda:0 --budget 6 --out " +
                       (out.path() / "t").string(),
                   env);
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(InteropT1Declared, RunsTunesRecordsAndReplaysOnPocl) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device";
  TempDir k, out, db;
  auto r = run_hetbench("kernel import-t1 " + fixture("blur3.json") + " --out " + k.str());
  ASSERT_EQ(r.status, 0) << r.output;
  // A private tuning database, not a private HOME: PoCL's kernel cache is under HOME, and a
  // compile there leaks LLVM's memory where LeakSanitizer watches (the sanitized pass finds
  // the kernels cached by the first).
  const std::string env = "HETBENCH_DB=" + (db.path() / "tuning.db").string();
  r = run_hetbench("--kernels " + k.str() + " list ops");
  EXPECT_THAT(r.output, HasSubstr("operands: out (out), in, w, nx:int, ny:int"));
  // No --size: a declared op has one problem, its T1 ProblemSize.
  r = run_hetbench("--kernels " + k.str() + " run blur3 --device opencl:0:0 --reps 2 --param tile_size_x=1,3 --out " +
                       (out.path() / "run").string(),
                   env);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto pts = records(out.path() / "run");
  ASSERT_EQ(pts.size(), 2u);
  for (const auto& p : pts) {
    EXPECT_EQ(p.value("status", ""), "ok") << p.dump();
    EXPECT_EQ(p["sizes"], (nlohmann::json{{"x", 1000}, {"y", 333}}));
    EXPECT_THAT(p["validation"]["note"].get<std::string>(), HasSubstr("outputs fnv1a64"));
  }
  // Every configuration computes the same sums in the same order: the same outputs.
  EXPECT_EQ(pts[0]["validation"]["note"], pts[1]["validation"]["note"]);

  // --kernel records the metadata and its source with the experiment: replay needs nothing else.
  r = run_hetbench("run blur3 --kernel " + (k.path() / "blur3.json").string() + " --device opencl:0:0 --reps 2 --out " +
                       (out.path() / "rec").string(),
                   env);
  ASSERT_EQ(r.status, 0) << r.output;
  const fs::path e = only_experiment(out.path() / "rec");
  EXPECT_TRUE(fs::exists(e / "kernels" / "blur.cl"));
  fs::remove_all(k.path());
  r = run_hetbench("replay " + e.string() + " --out " + (out.path() / "replay").string(), env);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(records(out.path() / "replay").at(0).value("status", ""), "ok");

  TempDir k2;
  ASSERT_EQ(run_hetbench("kernel import-t1 " + fixture("blur3.json") + " --out " + k2.str()).status, 0);
  r = run_hetbench("--kernels " + k2.str() + " tune blur3 --device opencl:0:0 --budget 4 --out " +
                       (out.path() / "tune").string(),
                   env);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("4/4 evaluations"));
}

TEST(InteropT1Declared, AnOutputLeftUnwrittenFailsValidation) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device";
  TempDir k, out;
  // The fixture with the defect planted: the last column of the output is never written.
  ASSERT_EQ(run_hetbench("kernel import-t1 " + fixture("blur3.json") + " --out " + k.str()).status, 0);
  auto meta = read_json(k.path() / "blur3.json");
  meta["defines"]["SKIP_LAST_COLUMN"] = "1";
  write_text(k.path() / "blur3.json", meta.dump());
  const auto r = run_hetbench("--kernels " + k.str() + " run blur3 --device opencl:0:0 --reps 2 --out " + out.str(),
                              "HETBENCH_DB=none");
  EXPECT_NE(r.status, 0) << r.output;
  const auto pts = records(out.path());
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].value("status", ""), "failed");
  EXPECT_EQ(pts[0]["validation"]["unwritten"], 333);  // one element of each of the 333 rows
}

TEST(InteropT1Declared, BadInput) {
  TempDir d;
  fs::copy_file(fixture("blur.cl"), d.path() / "blur.cl");
  const std::string good = read_text_file(fixture("blur3.json"));
  int made = 0;
  auto variant = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    const fs::path f = d.path() / ("bad" + std::to_string(++made) + ".json");
    write_text(f, t);
    return f.string();
  };
  TempDir out;
  auto import = [&](const std::string& file, const std::string& extra = "") {
    return run_hetbench("kernel import-t1 " + file + " --out " + out.str() + " " + extra);
  };
  struct Case {
    std::string file, extra, says;
  };
  const std::vector<Case> cases{
      {variant("\"(ProblemSize[0] + 2)", "\"(ProblemSize[0] + nope)"), "", "Arguments[1].Size"},
      {variant("\"(ProblemSize[0] + 2)", "\"(ProblemSize[2] + 2)"), "", "ProblemSize[2]: the problem has 2"},
      {variant("\"FillType\": \"Random\", \"Size\": 9", "\"FillType\": \"Random\", \"MemType\": \"Constant\", \"Size\": 9"),
       "", "Arguments[2].MemType"},
      {variant("\"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": \"ReadOnly\", \"FillType\": \"Random\", \"Size\": 9",
               "\"Type\": \"double\", \"MemoryType\": \"Vector\", \"AccessType\": \"ReadOnly\", \"FillType\": \"Random\", \"Size\": 9"),
       "", "one real type per problem"},
      {variant("\"SharedMemory\": 0", "\"SharedMemory\": 1024"), "", "SharedMemory"},
      {variant("\"ProblemSize\": [1000, 333]", "\"ProblemSize\": [1000, \"n\"]"), "", "ProblemSize[1]"},
      {fixture("blur3.json"), "--op axpy", "built-in op"},
  };
  for (const auto& c : cases) {
    const auto r = import(c.file, c.extra);
    EXPECT_EQ(r.status, 2) << c.says << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.says));
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }

  // A declared op has one problem; another size is refused, naming it.
  TempDir k;
  ASSERT_EQ(run_hetbench("kernel import-t1 " + fixture("blur3.json") + " --out " + k.str()).status, 0);
  auto r = run_hetbench("--kernels " + k.str() + " run blur3 --size 1000x334 --out " + out.str());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("one problem, of size 1000x333"));
  // The declaration is read strictly, naming the file and the key.
  auto meta = read_json(k.path() / "blur3.json");
  meta["op_declaration"]["operands"][0]["fill"] = "random";
  write_text(k.path() / "blur3.json", meta.dump());
  r = run_hetbench("--kernels " + k.str() + " list");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("blur3.json: op_declaration.operands[0].fill: a write-only vector starts poisoned"));
}

}  // namespace
