// GEMMbench entries run unmodified through `hetbench run gemm --kernel`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "test_util.hpp"
#include "util/json_file.hpp"
#include "util/sha256.hpp"

using namespace hetbench::test;
using testing::HasSubstr;

namespace {

// An own kernel in GEMMbench's format: SGEMM, A normal, B transposed, 1x1 per work-item
// (the one bench/gemmbench ships).
const std::string kNt1x1 = hetbench::read_text_file(source_dir() + "/bench/gemmbench/SGEMM_NT_1x1.cl");

// DGEMM NN, 4 rows of C per work-item (di = 4): GEMMbench's coarsening.
const char* kNn4x1 = R"CL(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void gemm(global const double* restrict A, global const double* restrict B, global double* restrict C,
                 double alpha, double beta, uint n) {
  const uint j = get_global_id(0), i0 = get_global_id(1) * 4;
  double acc[4] = {0, 0, 0, 0};
  for (uint k = 0; k < n; ++k) {
    const double b = B[k * n + j];
    for (uint r = 0; r < 4; ++r) acc[r] += A[(i0 + r) * n + k] * b;
  }
  for (uint r = 0; r < 4; ++r) C[(i0 + r) * n + j] = alpha * acc[r] + beta * C[(i0 + r) * n + j];
}
)CL";

}  // namespace

TEST(Gemmbench, EntryRunsUnmodified) {
  TempDir d;
  write_text(d.path() / "SGEMM_NT_1x1.cl", kNt1x1);
  write_text(d.path() / "SGEMM_NT_1x1.json",
        R"({"name": "SGEMM_NT_1x1", "file": "SGEMM_NT_1x1.cl", "type": "S", "transA": "N", "transB": "T", "dj": 1, "di": 1})");
  auto r = run_hetbench("run gemm --kernel " + (d.path() / "SGEMM_NT_1x1.json").string() +
                        " --device opencl:0:0 --size 16,40 --lws 4,2 --reps 2 --out " + (d.path() / "out").string());
  ASSERT_EQ(r.status, 0) << r.output;
  auto recs = hetbench::read_results(only_experiment(d.path() / "out"));
  ASSERT_EQ(recs.size(), 2u);
  for (const auto& rec : recs) {
    EXPECT_EQ(rec["status"], "ok") << describe(rec);
    EXPECT_EQ(rec["precision"], "S");
    EXPECT_EQ(rec["sizes"]["tb"], 1);
    EXPECT_EQ(rec["params"]["LWS_J"], 4);
  }
}

TEST(Gemmbench, FolderOfEntriesEachWithItsTypeAndLayout) {
  TempDir d;
  write_text(d.path() / "s.cl", kNt1x1);
  write_text(d.path() / "d.cl", kNn4x1);
  write_text(d.path() / "s.json", R"({"name": "gb_s", "file": "s.cl", "type": "S", "transA": "N", "transB": "T", "dj": 1, "di": 1})");
  write_text(d.path() / "d.json", R"({"name": "gb_d", "file": "d.cl", "type": "D", "transA": "N", "transB": "N", "dj": 1, "di": 4})");
  auto r = run_hetbench("run gemm --kernel " + d.str() + " --device opencl:0:0 --size 32 --reps 1 --out " +
                        (d.path() / "out").string());
  ASSERT_EQ(r.status, 0) << r.output;
  auto recs = hetbench::read_results(only_experiment(d.path() / "out"));
  ASSERT_EQ(recs.size(), 2u);
  for (const auto& rec : recs) {
    EXPECT_EQ(rec["status"], "ok") << describe(rec);
    EXPECT_EQ(rec["precision"], rec["variant"] == "gb_s" ? "S" : "D");
  }
}

TEST(Gemmbench, BadDimensionsAndEntriesAreClearErrors) {
  TempDir d;
  write_text(d.path() / "d.cl", kNn4x1);
  write_text(d.path() / "d.json", R"({"name": "gb_d4", "file": "d.cl", "type": "D", "transA": "N", "transB": "N", "dj": 1, "di": 4})");
  auto out = " --out " + (d.path() / "out").string();
  auto r = run_hetbench("run gemm --kernel " + (d.path() / "d.json").string() + " --size 66" + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("the order 66 is not divisible by 4"));
  r = run_hetbench("run gemm --kernel " + (d.path() / "d.json").string() + " --size 64@NT" + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("asks for layout NT"));
  r = run_hetbench("run gemm --kernel " + (d.path() / "d.json").string() + " --size 64x64x32" + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("square matrices"));
  write_text(d.path() / "bad.json", R"({"name": "b", "file": "d.cl", "type": "D", "transA": "N", "transB": "X", "dj": 1, "di": 4})");
  r = run_hetbench("run gemm --kernel " + (d.path() / "bad.json").string() + " --size 64" + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("bad.json: key 'transB'"));
  write_text(d.path() / "nodi.json", R"({"name": "b", "file": "d.cl", "type": "D", "transA": "N", "transB": "N", "dj": 1})");
  r = run_hetbench("run gemm --kernel " + (d.path() / "nodi.json").string() + " --size 64" + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("nodi.json: key 'di': missing"));
  r = run_hetbench("run dot --kernel " + (d.path() / "d.json").string() + " --size 64" + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("a GEMMbench entry, which is a gemm kernel: not one of op dot"));
}

// A foreign kernel described generically: its entry, an argument order naming the op's
// operands, and global/local expressions where "?" makes a local dimension tunable.
TEST(ForeignKernel, QuestionMarkLocalSizesAreTunable) {
  TempDir d;
  const auto k = d.path() / "k";  // the kernel folder: every JSON under it is metadata
  std::filesystem::create_directories(k);
  write_text(k / "f.cl", kNt1x1);
  write_text(k / "f.json", R"({"name": "foreign_nt", "op": "gemm", "source": "f.cl", "precisions": ["S"],
    "entry": "gemm", "args": ["A", "B", "C", "alpha", "beta", "n"], "global": ["n", "m"], "local": ["?", "?"]})");
  auto r = run_hetbench("--kernels " + k.string() + " run gemm --variant foreign_nt --device opencl:0:0 --precision S" +
                        " --size 16@NT --size 40@NT --param LWS0=4,16 --param LWS1=2 --reps 2 --out " +
                        (d.path() / "out").string());
  ASSERT_EQ(r.status, 0) << r.output;
  auto recs = hetbench::read_results(only_experiment(d.path() / "out"));
  ASSERT_EQ(recs.size(), 4u);
  int ok = 0, skipped = 0;
  for (const auto& rec : recs) {
    const bool divides = rec["sizes"]["n"].get<int>() % rec["params"]["LWS0"].get<int>() == 0;
    EXPECT_EQ(rec["status"], divides ? "ok" : "skipped") << describe(rec);
    ok += rec["status"] == "ok";
    skipped += rec["status"] == "skipped";
  }
  EXPECT_EQ(ok, 3);
  EXPECT_EQ(skipped, 1);  // 40 is no multiple of 16
  auto bad = run_hetbench("--kernels " + k.string() + " run gemm --variant foreign_nt --device opencl:0:0 --precision S" +
                          " --size 16@NT --param LWS0=3");
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("LWS0=3 is outside the domain"));
}

// A GEMMbench entry travels with its experiment: run records the entry and its source
// (SHA-256 and a copy in kernels/), replay reruns it with the original files gone, a copy
// edited afterwards is refused by name, and tune takes --kernel, recording the same.
TEST(Gemmbench, EntryIsRecordedReplayedAndTunedWithItsSource) {
  TempDir d;
  const auto src = d.path() / "src";
  std::filesystem::create_directories(src);
  write_text(src / "nt.cl", kNt1x1);
  write_text(src / "SGEMM_NT_1x1.json",
             R"({"name": "SGEMM_NT_1x1", "file": "nt.cl", "type": "S", "transA": "N", "transB": "T", "dj": 1, "di": 1})");
  const auto out = d.path() / "out";
  auto r = run_hetbench("run gemm --kernel " + (src / "SGEMM_NT_1x1.json").string() +
                        " --device opencl:0:0 --size 24,40 --reps 2 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto exp = only_experiment(out);
  const auto ej = read_json(exp / "experiment.json");
  ASSERT_TRUE(ej.contains("kernels")) << ej.dump();
  EXPECT_EQ(ej["kernels"]["format"], "GEMMbench");
  EXPECT_EQ(ej["kernels"]["entry"], "kernels/SGEMM_NT_1x1.json");
  for (const char* f : {"kernels/SGEMM_NT_1x1.json", "kernels/nt.cl"}) {
    ASSERT_TRUE(ej["kernels"]["files"].contains(f)) << f;
    EXPECT_EQ(ej["kernels"]["files"][f]["sha256"], hetbench::sha256_file((exp / f).string())) << f;
  }
  // The original files gone: replay reads the experiment's copies.
  std::filesystem::remove_all(src);
  r = run_hetbench("replay " + exp.string() + " --out " + (d.path() / "replayed").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("2 pairs"));
  EXPECT_TRUE(std::filesystem::exists(only_experiment(d.path() / "replayed") / "kernels" / "nt.cl"));
  // A copy edited afterwards: one error naming the file and both hashes.
  {
    std::ofstream(exp / "kernels" / "nt.cl", std::ios::app) << "// edited\n";
  }
  r = run_hetbench("replay " + exp.string() + " --out " + (d.path() / "replayed2").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("kernels/nt.cl: differs from the kernel file the experiment ran"));
  // Tune takes the entry (from the untouched copy folder of the replay) over its local size.
  const auto copies = only_experiment(d.path() / "replayed") / "kernels";
  r = run_hetbench("tune gemm --kernel " + (copies / "SGEMM_NT_1x1.json").string() +
                       " --device opencl:0:0 --size 32 --budget 4 --reps 2 --out " + (d.path() / "tuned").string(),
                   "HETBENCH_DB=" + (d.path() / "t.db").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto tuned = only_experiment(d.path() / "tuned");
  EXPECT_TRUE(read_json(tuned / "experiment.json").contains("kernels"));
  const auto recs = hetbench::read_results(tuned);
  ASSERT_FALSE(recs.empty());
  for (const auto& rec : recs) EXPECT_EQ(rec["variant_id"], "opencl/gemm/SGEMM_NT_1x1") << describe(rec);
}

// The entry's description travels with it: what the entry states ("author", "licence",
// "origin", a hetbench addition to GEMMbench's keys), with what the user states over it
// (--kernel-about), in experiment.json's "kernels" (which store bundles carry whole).
TEST(Gemmbench, TheEntrysAuthorLicenceAndOriginAreRecorded) {
  TempDir d;
  write_text(d.path() / "nt.cl", kNt1x1);
  write_text(d.path() / "e.json",
             R"({"name": "SGEMM_NT_1x1", "file": "nt.cl", "type": "S", "transA": "N", "transB": "T", "dj": 1, "di": 1,
                 "author": "A. Lokhmotov", "origin": "https://github.com/dividiti/gemmbench"})");
  const std::string run = "run gemm --kernel " + (d.path() / "e.json").string() + " --device opencl:0:0 --size 24 --reps 2";
  auto r = run_hetbench(run + " --kernel-about licence=BSD-3-Clause --kernel-about 'author=dividiti' --out " +
                        (d.path() / "out").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto ej = read_json(only_experiment(d.path() / "out") / "experiment.json");
  EXPECT_EQ(ej["kernels"]["about"]["e.json"],
            nlohmann::json({{"author", "dividiti"},
                            {"licence", "BSD-3-Clause"},
                            {"origin", "https://github.com/dividiti/gemmbench"}}))
      << ej["kernels"].dump();
  // Bad statements: one error naming the value; an entry's bad description names its key.
  r = run_hetbench(run + " --kernel-about colour=red --out " + (d.path() / "bad").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--kernel-about 'colour=red': expected author=..., licence=... or origin=..."));
  r = run_hetbench("run gemm --device host --size 8 --kernel-about author=x --out " + (d.path() / "bad").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("none is given"));
  write_text(d.path() / "e.json",
             R"({"name": "SGEMM_NT_1x1", "file": "nt.cl", "type": "S", "transA": "N", "transB": "T", "dj": 1, "di": 1,
                 "licence": 3})");
  r = run_hetbench(run + " --out " + (d.path() / "bad").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("licence"));
  EXPECT_THAT(r.output, HasSubstr("expected a non-empty string"));
  EXPECT_FALSE(std::filesystem::exists(d.path() / "bad"));
}

// GEMMbench's three NT kernels, written for hetbench as entries of its format
// (bench/gemmbench), run from a spec's "gemmbench" key as the presets do: every entry at
// orders that are and are not multiples of the local size's grid, local sizes whose rows
// make the barrier kernel's last k-chunk short, validated on PoCL; the presets parse.
TEST(Gemmbench, ShippedNtEntriesRunFromASpec) {
  TempDir d;
  const std::string entries = source_dir() + "/bench/gemmbench";
  write_text(d.path() / "spec.json", R"({"name": "nt", "gemmbench": ")" + entries + R"(", "devices": "opencl:0:0",
    "reps": 2, "warmup": 1, "runs": [{"op": "gemm", "sizes": ["36", "100"], "params": {"LWS_J": "1", "LWS_I": "2,4"}}]})");
  auto r = run_hetbench("sweep " + (d.path() / "spec.json").string() + " --out " + (d.path() / "out").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto recs = hetbench::read_results(only_experiment(d.path() / "out"));
  ASSERT_EQ(recs.size(), 12u);
  std::set<std::string> names;
  for (const auto& rec : recs) {
    EXPECT_EQ(rec["status"], "ok") << describe(rec);
    EXPECT_EQ(rec["sizes"]["tb"], 1);
    EXPECT_LT(rec["validation"]["max_err_over_bound"].get<double>(), 1) << describe(rec);
    names.insert(rec["variant"]);
  }
  EXPECT_EQ(names, (std::set<std::string>{"SGEMM_NT_1x1", "SGEMM_NT_1x4", "SGEMM_NT_1x4_barrier"}));
  // The entries' files are recorded with the experiment, so that replay needs nothing else.
  const auto ej = read_json(only_experiment(d.path() / "out") / "experiment.json");
  EXPECT_EQ(ej["kernels"]["files"].size(), 6u) << ej["kernels"].dump();
  // A relative path is the spec's folder's; a run of another op cannot take the entries.
  write_text(d.path() / "bad.json", R"({"gemmbench": "nowhere", "runs": [{"op": "gemm", "sizes": ["8"]}]})");
  r = run_hetbench("sweep " + (d.path() / "bad.json").string() + " --out " + (d.path() / "bad").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr((d.path() / "nowhere").string()));
  write_text(d.path() / "dot.json", R"({"gemmbench": ")" + entries + R"(", "runs": [{"op": "dot", "sizes": ["8"]}]})");
  r = run_hetbench("sweep " + (d.path() / "dot.json").string() + " --out " + (d.path() / "bad").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("its run of op 'dot' cannot run them"));
  for (const char* preset : {"gemmbench-nt-n.json", "gemmbench-nt-lws.json"}) {
    r = run_hetbench("sweep " + source_dir() + "/bench/" + preset + " --dry-run");
    EXPECT_EQ(r.status, 0) << preset << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("SGEMM_NT_1x4_barrier")) << preset;
  }
}
