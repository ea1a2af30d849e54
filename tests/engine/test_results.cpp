// The experiment folder: files parse, CSV matches JSONL, and an interrupted or killed
// sweep keeps every point that finished.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetbench/device.hpp"
#include "hetbench/record.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"

using namespace hetbench::test;

namespace {

std::vector<std::string> lines(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::vector<std::string> out;
  for (std::string l; std::getline(f, l);) out.push_back(l);
  return out;
}

// Waits until results.jsonl under root has at least `n` lines.
std::filesystem::path wait_for_points(const std::filesystem::path& root, std::size_t n) {
  for (int i = 0; i < 1200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!std::filesystem::exists(root)) continue;
    for (const auto& e : std::filesystem::directory_iterator(root)) {
      auto p = e.path() / "results.jsonl";
      if (std::filesystem::exists(p) && lines(p).size() >= n) return e.path();
    }
  }
  return {};
}

}  // namespace

TEST(Results, FilesParseAndAgree) {
  TempDir out;
  auto r = run_hetbench("run axpy --device host --size 10,1000 --precision S,D --reps 3 --out " + out.str());
  ASSERT_EQ(r.status, 0) << r.output;
  auto dir = only_experiment(out.path());
  auto exp = read_json(dir / "experiment.json");
  EXPECT_EQ(exp["status"], "complete");
  for (const char* k : {"command_line", "hetbench_version", "git_commit", "host", "compiler", "devices", "start_time",
                        "end_time", "seed", "runs"})
    EXPECT_TRUE(exp.contains(k)) << k;
  auto recs = hetbench::read_results(dir);
  // sizes x the S and D versions of the host variants (OpenBLAS only where it was built)
  std::size_t versions = 0;
  for (const auto& v : hetbench::variants_for("axpy"))
    if (v->backend == hetbench::BackendKind::Host)
      for (auto p : v->precisions) versions += p == hetbench::Precision::S || p == hetbench::Precision::D;
  ASSERT_GE(versions, 4u);  // loop and omp at least
  ASSERT_EQ(recs.size(), 2u * versions);
  for (const auto& rec : recs) {
    EXPECT_EQ(rec["status"], "ok") << describe(rec);
    const auto& s = rec["timing"]["seconds"];
    EXPECT_LE(s["min"].get<double>(), s["median"].get<double>());
    EXPECT_LE(s["ci95_lo"].get<double>(), s["mean"].get<double>());
    EXPECT_EQ(rec["timing"]["reps"], 3);
    EXPECT_GT(rec["gbs"].get<double>(), 0);
  }
  auto csv = lines(dir / "results.csv");
  ASSERT_EQ(csv.size(), recs.size() + 1);
  EXPECT_EQ(csv[0].rfind("point,op,variant", 0), 0u);
}

TEST(Results, InterruptedSweepKeepsFinishedPoints) {
  TempDir out;
  pid_t pid = spawn_hetbench("run dot --device host --variant loop --size 1000:200000:1000 --reps 5 --out " + out.str());
  auto dir = wait_for_points(out.path(), 3);
  ASSERT_FALSE(dir.empty()) << "no points recorded";
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 130);
  auto exp = read_json(dir / "experiment.json");
  EXPECT_EQ(exp["status"], "interrupted");
  auto recs = hetbench::read_results(dir);
  EXPECT_GE(recs.size(), 3u);
  EXPECT_LT(recs.size(), 200u);
  // Every finished point is ok; the one the signal cut short (only ever the last) is
  // recorded as interrupted, never as "ok" at 0 s, so that --resume measures it again.
  for (std::size_t i = 0; i < recs.size(); ++i) {
    const auto& r = recs[i];
    if (i + 1 == recs.size() && r["status"] == "interrupted") continue;
    EXPECT_EQ(r["status"], "ok") << "point " << i << " of " << recs.size();
  }
  EXPECT_EQ(lines(dir / "results.csv").size(), recs.size() + 1);
}

TEST(Results, KilledSweepKeepsFinishedPoints) {
  TempDir out;
  pid_t pid = spawn_hetbench("run dot --device host --variant loop --size 1000:200000:1000 --reps 5 --out " + out.str());
  auto dir = wait_for_points(out.path(), 3);
  ASSERT_FALSE(dir.empty());
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  auto recs = hetbench::read_results(dir);  // a torn last line, if any, is skipped
  EXPECT_GE(recs.size(), 3u);
  for (const auto& r : recs) EXPECT_EQ(r["status"], "ok");
  EXPECT_EQ(read_json(dir / "experiment.json")["status"], "running");
}

TEST(Results, ExistingExperimentIsNeverReused) {
  TempDir out;
  ASSERT_EQ(run_hetbench("run copy --device host --variant loop --size 10 --out " + out.str()).status, 0);
  ASSERT_EQ(run_hetbench("run copy --device host --variant loop --size 10 --out " + out.str()).status, 0);
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(out.path())) {
    ++n;
    EXPECT_EQ(hetbench::read_results(e.path()).size(), 2u);
  }
  EXPECT_EQ(n, 2);
}

TEST(Results, SweepSpecAndPresetsRun) {
  TempDir out;
  std::ofstream(out.path() / "spec.json") << R"({"name": "mini", "seed": 7, "reps": 2, "warmup": 0,
    "runs": [{"op": "dot", "variants": ["local"], "devices": "opencl", "precisions": ["S"], "sizes": ["4097"],
              "params": {"WG": "8:64:*2"}}]})";
  auto r = run_hetbench("sweep " + (out.path() / "spec.json").string() + " --out " + (out.path() / "res").string());
  ASSERT_EQ(r.status, 0) << r.output;
  auto recs = hetbench::read_results(only_experiment(out.path() / "res"));
  // WG 8, 16, 32, 64 on every OpenCL device
  ASSERT_EQ(recs.size(), 4u * hetbench::resolve_devices("opencl").size());
  for (const auto& rec : recs) EXPECT_EQ(rec["seed"], 7);
  // The shipped presets parse (they are run for real by scripts/, not in CI).
  for (const char* preset : {"default-suite.json", "explore-local-wg.json", "explore-global-n.json"}) {
    SCOPED_TRACE(preset);
    EXPECT_NO_THROW(hetbench::experiment_from_file(source_dir() + "/bench/" + preset));
  }
}

TEST(Results, IncludeTransfersIsRecorded) {
  TempDir out;
  auto r = run_hetbench("run axpy --device host,opencl:0:0 --variant omp,vec --size 4097 --reps 3 --include-transfers --out " +
                        out.str());
  ASSERT_EQ(r.status, 0) << r.output;
  auto recs = hetbench::read_results(only_experiment(out.path()));
  ASSERT_FALSE(recs.empty());
  for (const auto& rec : recs) {
    EXPECT_EQ(rec["status"], "ok") << describe(rec);
    EXPECT_EQ(rec["timing"]["timed"], "kernel+transfers");
  }
}

TEST(Results, BuiltProgramsAreCachedOnDisk) {
  TempDir cache, out;
  const std::string env = "HETBENCH_CACHE_DIR=" + cache.str();
  auto r = run_hetbench("run dot --device opencl:0:0 --variant local --size 1000 --reps 1 --out " + out.str(), env);
  ASSERT_EQ(r.status, 0) << r.output;
  auto dir = cache.path() / "opencl";
  ASSERT_TRUE(std::filesystem::is_directory(dir));
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.path().extension() == ".bin";
  EXPECT_EQ(files, 2u);  // one program per precision
  // A second process builds nothing new: it loads the same two binaries.
  r = run_hetbench("run dot --device opencl:0:0 --variant local --size 1000 --reps 1 --out " + out.str(), env);
  ASSERT_EQ(r.status, 0) << r.output;
  std::size_t again = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) again += e.path().extension() == ".bin";
  EXPECT_EQ(again, 2u);
}

// One to_json decides the record's keys: a skipped point has no measurement keys, a
// measured one has every documented key that applies, and "message" only when not ok.
TEST(Results, RecordKeys) {
  hetbench::PointRecord rec;
  rec.op = "dot";
  rec.sizes = {{"n", 7}};
  rec.params = {{"WG", 64}};
  rec.status = hetbench::PointStatus::skipped;
  rec.message = "constraint 'WG <= n' fails";
  auto keys = [](const nlohmann::json& j) {
    std::set<std::string> k;
    for (auto it = j.begin(); it != j.end(); ++it) k.insert(it.key());
    return k;
  };
  const std::vector<std::string> base{"point", "op",        "variant",   "variant_id", "kind", "backend", "device",
                                      "device_name", "precision", "sizes", "params",     "seed", "time",    "status"};
  auto with = [&](std::set<std::string> more) {
    more.insert(base.begin(), base.end());
    return more;
  };
  auto j = hetbench::to_json(rec);
  EXPECT_EQ(keys(j), with({"message"}));
  EXPECT_EQ(j["status"], "skipped");
  EXPECT_EQ(j["params"]["WG"], 64);
  rec.status = hetbench::PointStatus::ok;
  rec.flops = 14;
  rec.min_bytes = 56;
  rec.timing = hetbench::PointTiming{true, "steady_clock", 3, hetbench::compute_stats({1e-6, 2e-6, 3e-6})};
  rec.gflops = 0.007;
  rec.gbs = 0.028;
  rec.validation = hetbench::Validation{};
  rec.observed.pct_ceiling = 12.5;
  j = hetbench::to_json(rec);
  EXPECT_EQ(keys(j), with({"flops", "min_bytes", "timing", "gflops", "gbs", "validation", "pct_ceiling"}));
  EXPECT_EQ(j["timing"]["timed"], "kernel+transfers");
  EXPECT_EQ(j["timing"]["reps"], 3);
  EXPECT_EQ(j["timing"]["seconds"]["median"], 2e-6);
  EXPECT_EQ(j["validation"]["passed"], true);
}
