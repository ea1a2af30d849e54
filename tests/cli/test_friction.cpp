// What a new user types and used to be refused or silently changed: a size list whose
// pieces each carry a suffix, a device that none of the named variants runs on, and the
// vendor baselines of "libraries" that lack a precision.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/record/results.hpp"
#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;
using testing::Not;

TEST(Friction, EachPieceOfASizeListMayCarryItsOwnSuffix) {
  TempDir d;
  const std::string out = " --device host --variant naive --precision S --reps 1 --out " + d.str();
  auto r = run_hetbench("run gemm --size 64@NN,65x33x17@NT,40,24@TN" + out, "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto recs = hetbench::read_results(only_experiment(d.path()));
  ASSERT_EQ(recs.size(), 4u) << r.output;
  EXPECT_EQ(recs[0]["sizes"]["tb"], 0);
  EXPECT_EQ(recs[1]["sizes"]["m"], 65);
  EXPECT_EQ(recs[1]["sizes"]["tb"], 1);
  for (int i : {2, 3}) {  // "40,24@TN": the suffix applies to the list before it
    EXPECT_EQ(recs[i]["sizes"]["ta"], 1) << recs[i].dump();
    EXPECT_EQ(recs[i]["status"], "ok") << recs[i].dump();
  }
  // A piece without a suffix after one that has one stays an error, naming the token.
  r = run_hetbench("run gemm --size 64@NT,96" + out, "HETBENCH_DB=none");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("'64@NT,96'"));
}

TEST(Friction, ADeviceThatNoNamedVariantRunsOnIsNamed) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device (PoCL) here";
  TempDir d;
  auto r = run_hetbench("run copy --device opencl:0:0,host --variant vec,simple --precision S --size 1000 --reps 1 --out " +
                        d.str());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("nothing to run on host: vec, simple have no host variant (copy's there: loop"));
}

TEST(Friction, LibrariesWithoutThePrecisionAreNotListedOneByOne) {
  TempDir d;
  auto r = run_hetbench("run axpy --device host --variant auto,libraries --precision S,DF --size 1000 --reps 1 --out " +
                            d.str(),
                        "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("skipping")));
  // Named on purpose, a baseline without the precision is refused as before.
  r = run_hetbench("run axpy --device host --variant openblas --precision DF --size 1000 --reps 1 --out " + d.str(),
                   "HETBENCH_DB=none");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("has no DF version"));
}

// --dry-run lists what would be measured, with each parameter's source, and writes nothing.
TEST(Friction, DryRunListsThePlannedPointsAndWritesNothing) {
  TempDir d;
  const auto out = d.path() / "out";
  auto r = run_hetbench("run dot --device host --variant loop,omp --precision S,D --size 1000,4099 --param THREADS=1,2 "
                        "--dry-run --out " + out.string(),
                        "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  // loop: 2 precisions x 2 sizes; omp: the same x 2 thread counts.
  EXPECT_THAT(r.output, HasSubstr("dry run: 12 points planned, 12 to measure"));
  EXPECT_THAT(r.output, HasSubstr("command line"));  // THREADS' source
  EXPECT_FALSE(std::filesystem::exists(out));
  // Parameters as the result tables write them: K=V,K=V.
  r = run_hetbench("run gemm --device host --variant split_tf32 --precision S --size 33 --dry-run", "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, testing::ContainsRegex("FULL=[01],SLICES=[0-9]+,THREADS=[0-9]+ "));
  EXPECT_THAT(r.output, Not(testing::ContainsRegex("[A-Z]=[0-9]+;")));
  r = run_hetbench("sweep " + source_dir() + "/bench/default-suite.json --dry-run --out " + out.string(),
                   "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("points planned"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

// --filter narrows a run or a spec (the default suite too) to the points whose name matches,
// a leading '-' to those it does not; it is recorded, so that a resume plans the same
// points, and a pattern that is malformed or leaves nothing is one clear error.
TEST(Friction, FilterNarrowsThePointsByNameAndIsRecorded) {
  TempDir d;
  const auto out = d.path() / "out";
  const std::string run = "run dot --device host --variant loop,omp --precision S,D --size 1000,4099 --reps 2 ";
  auto r = run_hetbench(run + "--dry-run --filter 'omp/D/'", "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("dry run: 2 points planned"));
  EXPECT_THAT(r.output, HasSubstr("host/dot/omp/D/n=4099"));
  EXPECT_THAT(r.output, Not(HasSubstr("host/dot/loop/")));
  r = run_hetbench(run + "--filter '-/S/' --out " + out.string(), "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dir = only_experiment(out);
  auto recs = hetbench::read_results(dir);
  ASSERT_EQ(recs.size(), 4u) << r.output;
  for (const auto& rec : recs) EXPECT_EQ(rec["precision"], "D") << rec.dump();
  EXPECT_EQ(read_json(dir / "experiment.json")["spec"]["filter"], "-/S/");
  // Resumed (every point finished: nothing to do) it plans the same 4 points, not 8.
  r = run_hetbench("sweep --resume " + dir.string(), "HETBENCH_DB=none");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(hetbench::read_results(dir).size(), 4u) << r.output;
  // Under isolation the workers plan the same filtered points.
  r = run_hetbench(run + "--filter 'loop/S/n=4099' --isolate --out " + (d.path() / "iso").string(), "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  recs = hetbench::read_results(only_experiment(d.path() / "iso"));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0]["variant"], "loop");
  EXPECT_EQ(recs[0]["sizes"]["n"], 4099);
  // The default suite's spec takes --filter; a spec narrows itself with "filter".
  r = run_hetbench("sweep " + source_dir() + "/bench/default-suite.json --dry-run --filter '^host/dot/'",
                   "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("host/dot/"));
  EXPECT_THAT(r.output, Not(HasSubstr("host/axpy/")));
  write_text(d.path() / "s.json", R"({"op": "dot", "devices": ["host"], "variants": ["loop"], "precisions": ["S", "D"],
                                     "sizes": [1000], "filter": "/D/"})");
  r = run_hetbench("sweep " + (d.path() / "s.json").string() + " --dry-run", "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("dry run: 1 points planned"));
  // Bad patterns: one error each, nothing recorded.
  auto refused = [&](const std::string& args, const std::string& message) {
    auto b = run_hetbench(args, "HETBENCH_DB=none");
    EXPECT_EQ(b.status, 2) << args << "\n" << b.output;
    EXPECT_THAT(b.output, HasSubstr(message)) << args;
  };
  refused(run + "--filter '(' --out " + (d.path() / "bad").string(), "--filter '(': not a regular expression");
  refused(run + "--filter cuda --out " + (d.path() / "bad").string(),
          "--filter 'cuda' leaves none of the 8 planned points (names look like host/dot/loop/S/n=1000");
  write_text(d.path() / "b.json", R"({"op": "dot", "devices": ["host"], "sizes": [1000], "filter": 3})");
  refused("sweep " + (d.path() / "b.json").string(), "b.json: key 'filter': expected a regular expression");
  refused("sweep --resume " + dir.string() + " --filter loop", "--filter cannot change a recorded experiment");
  EXPECT_FALSE(std::filesystem::exists(d.path() / "bad"));
}

// The table shows how many timed repetitions each point took and how noisy its median is.
TEST(Friction, TableShowsSamplesAndNoise) {
  TempDir d;
  auto r = run_hetbench("run copy --device host --variant loop --precision S --size 1000 --reps 7 --out " + d.str() +
                        " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("samples"));
  EXPECT_THAT(r.output, HasSubstr("noise"));
  EXPECT_THAT(r.output, testing::ContainsRegex(" 7 +[0-9.]+% "));
}

// The double-word storage (the size key "soa") means nothing in S and D: their labels
// leave it out (the records keep it), while DF and DD show it where it is chosen.
TEST(Friction, SingleWordSizesShowNoStorage) {
  TempDir d;
  const std::string out = " --device host --variant loop,dw_loop --reps 2 --size 1000,1001@soa --out " + d.str();
  auto r = run_hetbench("run dot --precision S,D,DF" + out + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("n=1000,soa=0")));
  EXPECT_THAT(r.output, testing::ContainsRegex("dot +S +n=1000 "));
  EXPECT_THAT(r.output, testing::ContainsRegex("dot +DF +n=1001,storage=soa "));
  for (const auto& rec : hetbench::read_results(only_experiment(d.path()))) EXPECT_TRUE(rec["sizes"].contains("soa"));
  r = run_hetbench("run dot --precision D --dry-run" + out);
  EXPECT_THAT(r.output, Not(HasSubstr("soa")));
}

// --format json on stdout is one document with a context block, as --json FILE and as
// nvbench's and Google Benchmark's JSON are; --format jsonl keeps a record a line.
TEST(Friction, FormatJsonIsOneDocumentWithItsContext) {
  TempDir d;
  const std::string run = "run copy --device host --variant loop --precision S,D --size 1000 --reps 2 --out " + d.str();
  // stdout alone (run_shell joins stderr to it unless it goes elsewhere first).
  auto stdout_of = [](const std::string& args) {
    return run_shell("{ " + std::string(HETBENCH_BINARY) + " " + args + " 2>/dev/null; }");
  };
  auto r = stdout_of(run + " --format json");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  ASSERT_EQ(doc["points"].size(), 2u);
  EXPECT_EQ(doc["points"][1]["precision"], "D");
  for (const char* k : {"experiment", "command_line", "git_commit", "host", "devices", "seed"})
    EXPECT_TRUE(doc["context"].contains(k)) << k;
  EXPECT_EQ(doc["context"]["devices"][0]["id"], "host");
  r = stdout_of(run + " --format jsonl");
  ASSERT_EQ(r.status, 0) << r.output;
  std::istringstream lines(r.output);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) EXPECT_EQ(nlohmann::json::parse(line)["op"], "copy");
  EXPECT_EQ(n, 2);
}

// --json/--md/--csv FILE write the report beside the experiment folder: JSON as one
// document with a context block, Markdown and CSV as on stdout. A file in a folder that
// does not exist is refused before anything is measured.
TEST(Friction, ReportFilesBesideTheExperiment) {
  TempDir d;
  const auto j = d.path() / "r.json", md = d.path() / "r.md", csv = d.path() / "r.csv";
  auto r = run_hetbench("run copy --device host --variant loop --precision S,D --size 1000,4099 --reps 2 --out " +
                        (d.path() / "out").string() + " --json " + j.string() + " --md " + md.string() + " --csv " +
                        csv.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto doc = read_json(j);
  ASSERT_EQ(doc["points"].size(), 4u);
  EXPECT_THAT(doc["context"]["command_line"].get<std::string>(), HasSubstr("--json"));
  EXPECT_EQ(doc["context"]["experiment"], only_experiment(d.path() / "out").string());
  EXPECT_EQ(doc["context"]["devices"][0]["id"], "host");
  std::ifstream m(md), c(csv);
  std::string first;
  std::getline(m, first);
  EXPECT_EQ(first.rfind("| device | op |", 0), 0u) << first;
  std::getline(c, first);
  EXPECT_EQ(first.rfind("point,", 0), 0u) << first;
  int lines = 0;
  for (std::string l; std::getline(c, l);) ++lines;
  EXPECT_EQ(lines, 4);
  r = run_hetbench("run copy --device host --variant loop --size 1000 --reps 2 --out " + (d.path() / "out2").string() +
                   " --json " + (d.path() / "nowhere" / "r.json").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--json"));
  EXPECT_THAT(r.output, HasSubstr("does not exist"));
  EXPECT_FALSE(std::filesystem::exists(d.path() / "out2"));
}
