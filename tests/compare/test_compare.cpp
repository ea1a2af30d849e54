// hetbench compare: verdicts on synthetic samples of known distributions (seeded), the
// geometric-mean summary, pairing by experiment and by device, the CI exit code, and bad
// input (not an experiment, a truncated or hand-edited results file, nothing in common).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compare/folder.hpp"
#include "compare/output.hpp"
#include "compare/pairing.hpp"
#include "compare/verdict.hpp"
#include "test_util.hpp"
#include "util/json_file.hpp"

using namespace hetbench;
using testing::HasSubstr;

namespace {

// n samples around `median` with a relative spread `noise` (normal, seeded).
std::vector<double> samples(double median, double noise, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, noise);
  std::vector<double> s;
  for (int i = 0; i < n; ++i) s.push_back(median * std::max(0.05, 1 + g(rng)));
  return s;
}

nlohmann::json point(int idx, const std::string& device, std::int64_t n, const std::vector<double>& s,
                     const std::string& variant = "loop", const std::string& op = "dot") {
  return {{"point", idx},
          {"op", op},
          {"variant", variant},
          {"variant_id", "host/" + op + "/" + variant},
          {"kind", "host"},
          {"backend", "host"},
          {"device", device},
          {"device_name", "cpu " + device},
          {"precision", "S"},
          {"sizes", {{"n", n}}},
          {"params", nlohmann::json::object()},
          {"seed", 5},
          {"status", "ok"},
          {"timing", {{"reps", s.size()}, {"samples", s}, {"seconds", to_json(compute_stats(s))}}},
          {"validation", {{"passed", true}}}};
}

std::filesystem::path write_experiment(const std::filesystem::path& dir, const std::vector<nlohmann::json>& pts,
                                       const std::string& commit = "0123456789ab") {
  std::filesystem::create_directories(dir);
  test::write_text(
      (dir / "experiment.json").string(),
      nlohmann::json{
          {"name", dir.filename().string()}, {"git_commit", commit}, {"status", "complete"}, {"points", pts.size()}}
          .dump());
  std::string lines;
  for (const auto& p : pts) lines += p.dump() + "\n";
  test::write_text((dir / "results.jsonl").string(), lines);
  return dir;
}

Verdict verdict_of(double ratio, double noise, int n, double threshold, std::uint64_t seed) {
  auto a = median_interval(samples(1e-3, noise, n, seed));
  auto b = median_interval(samples(1e-3 * ratio, noise, n, seed + 1));
  return judge(a, b, threshold).verdict;
}

}  // namespace

TEST(CompareVerdict, KnownDistributions) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  // A 5 % shift with 0.5 % noise is beyond a 2 % threshold both ways.
  EXPECT_EQ(verdict_of(1.05, 0.005, 200, 0.02, seed), Verdict::slower);
  EXPECT_EQ(verdict_of(1 / 1.05, 0.005, 200, 0.02, seed), Verdict::faster);
  // Identical distributions, and a 1 % shift, are within it.
  EXPECT_EQ(verdict_of(1.0, 0.005, 200, 0.02, seed), Verdict::same);
  EXPECT_EQ(verdict_of(1.01, 0.005, 200, 0.02, seed), Verdict::same);
  // Huge noise leaves the ratio's interval across the threshold.
  EXPECT_EQ(verdict_of(1.05, 0.5, 20, 0.02, seed), Verdict::ambiguous);
  EXPECT_EQ(verdict_of(1.0, 0.5, 20, 0.02, seed), Verdict::ambiguous);
  // The threshold decides a small real shift: 3 % is slower under 1 %, same under 5 %.
  EXPECT_EQ(verdict_of(1.03, 0.002, 400, 0.01, seed), Verdict::slower);
  EXPECT_EQ(verdict_of(1.03, 0.002, 400, 0.05, seed), Verdict::same);
  // A side without timing.
  EXPECT_EQ(judge(std::nullopt, median_interval({1, 2, 3}), 0.02).verdict, Verdict::invalid);
}

TEST(CompareVerdict, RatioIntervalBoundsTheMedians) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  const auto a = median_interval(samples(2e-3, 0.01, 101, seed)),
             b = median_interval(samples(3e-3, 0.01, 101, seed + 7));
  const auto j = judge(a, b, 0.02);
  EXPECT_DOUBLE_EQ(j.ratio, b.median / a.median);
  EXPECT_DOUBLE_EQ(j.lo, b.lo / a.hi);
  EXPECT_DOUBLE_EQ(j.hi, b.hi / a.lo);
  EXPECT_LE(j.lo, j.ratio);
  EXPECT_GE(j.hi, j.ratio);
}

TEST(CompareSummary, GeometricMeanPerGroup) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  test::TempDir tmp;
  std::vector<nlohmann::json> a, b;
  std::vector<double> ratios_loop, ratios_omp;
  for (int i = 0; i < 6; ++i) {
    const double base = 1e-4 * u(rng), r = u(rng);
    const std::string v = i % 2 ? "omp" : "loop";
    // Constant samples: the medians are exact and so is the expected geometric mean.
    a.push_back(point(i, "host", 1000 * (i + 1), std::vector<double>(9, base), v));
    b.push_back(point(i, "host", 1000 * (i + 1), std::vector<double>(9, base * r), v));
    (i % 2 ? ratios_omp : ratios_loop).push_back(r);
  }
  std::vector<RecordedExperiment> exps{read_experiment(write_experiment(tmp.path() / "a", a)),
                                       read_experiment(write_experiment(tmp.path() / "b", b))};
  const auto c = compare_sides(make_sides(exps, {}), "experiment", 0.02);
  ASSERT_EQ(c.pairs.size(), 6u);
  const auto groups = summarize(c);
  ASSERT_EQ(groups.size(), 2u);
  auto geo = [](const std::vector<double>& r) {
    double s = 0;
    for (double x : r) s += std::log(x);
    return std::exp(s / static_cast<double>(r.size()));
  };
  EXPECT_EQ(groups[0].group, "dot host/dot/loop host S");
  EXPECT_NEAR(groups[0].geomean, geo(ratios_loop), 1e-12);
  EXPECT_NEAR(groups[1].geomean, geo(ratios_omp), 1e-12);
  EXPECT_EQ(groups[0].timed, 3);
}

TEST(CompareCli, VerdictsFormatsAndTheExitGate) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  test::TempDir tmp;
  std::vector<nlohmann::json> a, b;
  // Point 0 slower by 10 %, point 1 the same distribution, point 2 only in A.
  a.push_back(point(0, "host", 1000, samples(1e-3, 0.005, 150, seed)));
  b.push_back(point(0, "host", 1000, samples(1.1e-3, 0.005, 150, seed + 1)));
  a.push_back(point(1, "host", 2000, samples(2e-3, 0.005, 150, seed + 2)));
  b.push_back(point(1, "host", 2000, samples(2e-3, 0.005, 150, seed + 3)));
  a.push_back(point(2, "host", 3000, samples(3e-3, 0.005, 150, seed + 4)));
  const auto da = write_experiment(tmp.path() / "a", a).string(), db = write_experiment(tmp.path() / "b", b).string();

  auto r = test::run_hetbench("compare " + da + " " + db);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("slower"));
  EXPECT_THAT(r.output, HasSubstr("2 pairs: 1 slower, 1 same; 1 point(s) of a unpaired"));
  EXPECT_EQ(test::run_hetbench("compare " + da + " " + db + " --fail-on slower").status, 1);
  EXPECT_EQ(test::run_hetbench("compare " + db + " " + da + " --fail-on slower").status, 0);  // B to A is faster
  EXPECT_EQ(test::run_hetbench("compare " + db + " " + da + " --fail-on faster,ambiguous").status, 1);
  // A threshold above the shift makes it the same.
  EXPECT_EQ(test::run_hetbench("compare " + da + " " + db + " --threshold 20 --fail-on slower,ambiguous").status, 0);

  r = test::run_hetbench("compare " + da + " " + db + " --format json 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["counts"]["slower"], 1);
  EXPECT_EQ(j["counts"]["same"], 1);
  EXPECT_EQ(j["unpaired"]["a"], 1);
  EXPECT_EQ(j["pairs"][0]["verdict"], "slower");
  EXPECT_NEAR(j["pairs"][0]["ratio"].get<double>(), 1.1, 0.01);

  r = test::run_hetbench("compare " + da + " " + db + " --format csv 2>/dev/null");
  EXPECT_THAT(r.output, HasSubstr("candidate,op,variant_id,device,precision,sizes,params,ref_point"));
  r = test::run_hetbench("compare " + da + " " + db + " --format md 2>/dev/null");
  EXPECT_THAT(r.output, HasSubstr("| --- |"));
}

TEST(CompareCli, ByDeviceWithinOneExperiment) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  test::TempDir tmp;
  std::vector<nlohmann::json> pts;
  for (int i = 0; i < 3; ++i) {
    pts.push_back(point(2 * i, "dev0", 1000 << i, samples(1e-3, 0.005, 100, seed + 2 * i)));
    pts.push_back(point(2 * i + 1, "dev1", 1000 << i, samples(2e-3, 0.005, 100, seed + 2 * i + 1)));
  }
  const auto d = write_experiment(tmp.path() / "x", pts).string();
  auto r = test::run_hetbench("compare " + d + " --by device=dev0,dev1 --format json 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["counts"]["slower"], 3);
  EXPECT_EQ(j["pairs"][0]["candidate_device"], "dev1");
  EXPECT_NEAR(j["groups"][0]["geomean_ratio"].get<double>(), 2.0, 0.05);
  // The other way round, and the values as they appear.
  r = test::run_hetbench("compare " + d + " --by device=dev1,dev0 --fail-on slower");
  EXPECT_EQ(r.status, 0) << r.output;
  r = test::run_hetbench("compare " + d + " --by device --format json 2>/dev/null");
  EXPECT_EQ(nlohmann::json::parse(r.output)["counts"]["slower"], 3);
}

// Devices whose kernels differ (host omp against OpenCL vec): each problem's fastest own
// variant on one device against the other's; a vendor library is not "own", and a
// problem measured on one device only pairs with nothing.
TEST(CompareCli, ByDevicePairsEachDevicesBestOwnVariant) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  test::TempDir tmp;
  std::vector<nlohmann::json> pts;
  int i = 0;
  for (std::int64_t n : {1000, 2000}) {
    pts.push_back(point(i++, "host", n, samples(2e-3, 0.005, 60, seed + i), "omp"));
    pts.push_back(point(i++, "host", n, samples(3e-3, 0.005, 60, seed + i), "loop"));
    pts.push_back(point(i++, "opencl:0:0", n, samples(1e-3, 0.005, 60, seed + i), "vec"));
    auto lib = point(i++, "opencl:0:0", n, samples(0.5e-3, 0.005, 60, seed + i), "clblast");
    lib["kind"] = "library";
    pts.push_back(lib);
  }
  pts.push_back(point(i++, "host", 4000, samples(2e-3, 0.005, 60, seed + i), "omp"));
  const auto d = write_experiment(tmp.path() / "x", pts).string();
  auto r = test::run_hetbench("compare " + d + " --by device=host,opencl:0:0 --format json 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["pairs"].size(), 2u) << j.dump(1);
  for (const auto& p : j["pairs"]) {
    EXPECT_EQ(p["pairing"], "best own");
    EXPECT_EQ(p["variant_id"], "host/dot/omp");
    EXPECT_EQ(p["candidate_variant_id"], "host/dot/vec");
    EXPECT_EQ(p["verdict"], "faster");
    EXPECT_NEAR(p["ratio"].get<double>(), 0.5, 0.02);
  }
  EXPECT_EQ(j["groups"][0]["group"], "dot best own S");
  r = test::run_hetbench("compare " + d + " --by device=host,opencl:0:0 2>/dev/null");
  EXPECT_THAT(r.output, HasSubstr("best own: omp | vec"));
}

TEST(CompareCli, BadInputIsOneClearError) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  test::TempDir tmp;
  std::vector<nlohmann::json> a{point(0, "host", 1000, samples(1e-3, 0.01, 30, seed)),
                                point(1, "host", 2000, samples(1e-3, 0.01, 30, seed + 1))};
  const auto da = write_experiment(tmp.path() / "a", a).string();
  const auto other =
      write_experiment(tmp.path() / "other", {point(0, "gpu", 5, samples(1e-3, 0.01, 30, seed), "x", "gemm")});
  std::filesystem::create_directories(tmp.path() / "plain");

  struct Case {
    std::string args, expect;
  };
  std::vector<Case> cases{
      {da + " " + (tmp.path() / "plain").string(), "is not an experiment folder: it has no experiment.json"},
      {da + " " + other.string(), "nothing in common"},
      {da, "compare needs two experiment folders"},
      {da + " " + da + " --by colour", "--by 'colour'"},
      {da + " --by device=host,gpu", "no point has device 'gpu'"},
      {da + " " + da + " --threshold -1", "--threshold -1 is impossible"},
      {da + " " + da + " --threshold 5 --max-threshold 3", "--max-threshold 3 is impossible"},
      {da + " " + da + " --fail-on worse", "--fail-on 'worse'"}};
  // A results file cut in the middle of a line, and hand edits that break a record.
  const auto text = read_text_file((tmp.path() / "a" / "results.jsonl").string());
  auto variant = [&](const std::string& name, const std::string& content) {
    const auto d = tmp.path() / name;
    write_experiment(d, a);
    test::write_text((d / "results.jsonl").string(), content);
    return d.string();
  };
  cases.push_back({da + " " + variant("cut", text.substr(0, text.size() - 40)), "cut/results.jsonl:2: invalid JSON"});
  cases.push_back({da + " " + variant("short", text.substr(0, text.find('\n') + 1)), "point 1 of the complete experiment's 2 is missing"});
  auto edited = a;
  edited[1]["timing"]["samples"][3] = "fast";
  std::string lines;
  for (const auto& p : edited) lines += p.dump() + "\n";
  cases.push_back({da + " " + variant("edited", lines), "edited/results.jsonl:2: key 'timing.samples[3]'"});
  edited = a;
  edited[0]["timing"]["samples"].erase(0);
  lines.clear();
  for (const auto& p : edited) lines += p.dump() + "\n";
  cases.push_back({da + " " + variant("dropped", lines),
                   "dropped/results.jsonl:1: key 'timing.samples': 29 samples, "
                   "but 'timing.reps' says 30"});
  for (const auto& c : cases) {
    auto r = test::run_hetbench("compare " + c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.expect)) << c.args;
    EXPECT_THAT(r.output, HasSubstr("hetbench: error:")) << c.args;
  }
}

TEST(CompareFolder, ATornLastLineOfAnUnfinishedRunIsSkipped) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  test::TempDir tmp;
  const auto d = write_experiment(tmp.path() / "running", {point(0, "host", 1000, samples(1e-3, 0.01, 30, seed))});
  test::write_text((d / "experiment.json").string(), R"({"name":"running","status":"running"})");
  std::ofstream(d / "results.jsonl", std::ios::app) << R"({"point":1,"op":"d)";
  const auto e = read_experiment(d);
  EXPECT_EQ(e.points.size(), 1u);
}

TEST(CompareCli, ByCommitVariantAndPrecision) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  test::TempDir tmp;
  std::vector<nlohmann::json> old_pts, new_pts, mixed;
  for (int i = 0; i < 3; ++i) {
    old_pts.push_back(point(i, "host", 1000 << i, samples(1e-3, 0.005, 100, seed + i)));
    new_pts.push_back(point(i, "host", 1000 << i, samples(1e-3, 0.005, 100, seed + 10 + i)));
    mixed.push_back(point(3 * i, "host", 1000 << i, samples(2e-3, 0.005, 100, seed + 20 + i), "loop"));
    mixed.push_back(point(3 * i + 1, "host", 1000 << i, samples(1e-3, 0.005, 100, seed + 30 + i), "omp"));
    auto d = point(3 * i + 2, "host", 1000 << i, samples(4e-3, 0.005, 100, seed + 40 + i), "loop");
    d["precision"] = "D";
    mixed.push_back(d);
  }
  const auto a = write_experiment(tmp.path() / "a", old_pts, "aaaa11112222").string();
  const auto b = write_experiment(tmp.path() / "b", new_pts, "bbbb33334444").string();
  const auto m = write_experiment(tmp.path() / "m", mixed).string();
  auto json_of = [](const std::string& args) {
    auto r = test::run_hetbench("compare " + args + " --format json");
    EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
    return nlohmann::json::parse(r.output);
  };
  auto j = json_of(a + " " + b + " --by commit=aaaa,bbbb");
  EXPECT_EQ(j["counts"]["same"], 3) << j["counts"].dump();
  j = json_of(m + " --by variant=loop,omp");
  EXPECT_EQ(j["counts"]["faster"], 3) << j["counts"].dump();
  EXPECT_NEAR(j["groups"][0]["geomean_ratio"].get<double>(), 0.5, 0.02);
  EXPECT_EQ(j["groups"][0]["group"], "dot host S");
  j = json_of(m + " --by precision=S,D");
  EXPECT_EQ(j["counts"]["slower"], 3) << j["counts"].dump();
  EXPECT_EQ(j["unpaired"]["precision=S"], 3);  // the omp points have no D counterpart
}
