// The results query (src/engine/record/query.cpp): best per group, ratios against a baseline in
// the same group, summaries and targets, against brute force over fresh random records;
// and `hetbench check` over a spec's targets, run and read back.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/record/query.hpp"
#include "engine/plan/spec.hpp"
#include "hetbench/error.hpp"
#include "test_util.hpp"

using namespace hetbench;
using ::testing::HasSubstr;

namespace {

// Records of random groups (device x precision x size), own kernels and libraries, with
// some failed and skipped ones; every rate differs from every other.
std::vector<nlohmann::json> random_records(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(1, 1000);
  std::vector<nlohmann::json> out;
  const int sizes = 3 + static_cast<int>(rng() % 4);
  for (const char* dev : {"cuda:0", "opencl:0:0"})
    for (const char* p : {"S", "D"})
      for (int s = 0; s < sizes; ++s)
        for (int v = 0; v < 5; ++v) {
          const bool lib = v >= 3;
          const int status = static_cast<int>(rng() % 10);
          nlohmann::json r = {{"device", dev},
                              {"op", "copy"},
                              {"precision", p},
                              {"sizes", {{"n", 1000 + 37 * s}}},
                              {"variant_id", fmt::format("{}/copy/v{}", dev, v)},
                              {"kind", lib ? "library" : "kernel"},
                              {"status", status == 0 ? "failed" : status == 1 ? "skipped" : "ok"},
                              {"timing", {{"seconds", {{"median", 1 / u(rng)}}}}}};
          if (status > 1) r["gbs"] = u(rng);
          out.push_back(r);
        }
  return out;
}

std::string key_of(const nlohmann::json& r) {
  return fmt::format("{} {} {}", r["device"].get<std::string>(), r["precision"].get<std::string>(), r["sizes"].dump());
}

// The best ok rate of the records `pick` takes, per key_of, by brute force.
std::map<std::string, double> brute_best(const std::vector<nlohmann::json>& recs, bool (*pick)(const nlohmann::json&)) {
  std::map<std::string, double> best;
  for (const auto& r : recs) {
    if (!pick(r) || r["status"] != "ok") continue;
    const double x = r["gbs"].get<double>();
    auto [it, fresh] = best.emplace(key_of(r), x);
    if (!fresh) it->second = std::max(it->second, x);
  }
  return best;
}

bool is_kernel(const nlohmann::json& r) { return r["kind"] == "kernel"; }
bool is_library(const nlohmann::json& r) { return r["kind"] == "library"; }

const query::GroupKey kKey = query::group_by({"device", "precision", "sizes"});

}  // namespace

TEST(Query, BestPerGroupIsTheFastestOkRecordOfEachGroup) {
  std::mt19937_64 rng(test::fresh_seed());
  for (int trial = 0; trial < 20; ++trial) {
    const auto recs = random_records(rng);
    const auto want = brute_best(recs, is_kernel);
    const auto got = query::best_per_group(recs, query::Selection{{{"kind", "kernel"}}}, query::Metric{"gbs"}, kKey);
    ASSERT_EQ(got.groups.size(), want.size());
    int failed = 0, seen = 0;
    for (const auto& r : recs)
      if (is_kernel(r)) ++seen, failed += r["status"] == "failed";
    EXPECT_EQ(got.seen, seen);
    EXPECT_EQ(got.failed, failed);
    for (const auto& g : got.groups) {
      EXPECT_EQ(g.record["kind"], "kernel");
      EXPECT_EQ(g.record["status"], "ok");
      EXPECT_DOUBLE_EQ(g.value, want.at(key_of(g.record)));
      EXPECT_DOUBLE_EQ(g.value, g.record["gbs"].get<double>());
    }
    // The rate metric of an op rated by bytes is its GB/s.
    const auto rate = query::best_per_group(recs, query::Selection{{{"kind", "kernel"}}}, query::Metric{}, kKey);
    ASSERT_EQ(rate.groups.size(), got.groups.size());
    for (std::size_t i = 0; i < rate.groups.size(); ++i) EXPECT_EQ(rate.groups[i].value, got.groups[i].value);
  }
}

TEST(Query, RatiosPairOwnAndBaselineInTheSameGroupAndSummarize) {
  std::mt19937_64 rng(test::fresh_seed());
  for (int trial = 0; trial < 20; ++trial) {
    const auto recs = random_records(rng);
    const auto own = brute_best(recs, is_kernel), lib = brute_best(recs, is_library);
    const auto r = query::ratios(recs, query::Selection::parse("kind=kernel"), query::Selection::parse("kind=library"),
                                 query::Metric::parse("gbs"), kKey);
    double log_sum = 0, lo = 1e300;
    std::size_t n = 0, unpaired = 0;
    for (const auto& [k, x] : own) {
      if (!lib.count(k)) {
        ++unpaired;
        continue;
      }
      log_sum += std::log(x / lib.at(k));
      lo = std::min(lo, x / lib.at(k));
      ++n;
    }
    for (const auto& [k, x] : lib) unpaired += !own.count(k);
    ASSERT_EQ(r.pairs.size(), n);
    EXPECT_EQ(r.unpaired.size(), unpaired);
    for (const auto& p : r.pairs) EXPECT_DOUBLE_EQ(p.ratio, own.at(key_of(p.own.record)) / lib.at(key_of(p.base.record)));
    const auto s = query::summarize(r);
    ASSERT_EQ(s.n, n);
    if (n) {
      EXPECT_NEAR(s.geomean, std::exp(log_sum / static_cast<double>(n)), 1e-12 * s.geomean);
      EXPECT_DOUBLE_EQ(s.min, lo);
    }
  }
}

TEST(Query, TimeIsLowerIsBetterAndItsRatioStillMeansOwnIsBetterAboveOne) {
  const std::vector<nlohmann::json> recs = {
      {{"op", "copy"}, {"status", "ok"}, {"variant", "a"}, {"timing", {{"seconds", {{"median", 2.0}}}}}},
      {{"op", "copy"}, {"status", "ok"}, {"variant", "a"}, {"timing", {{"seconds", {{"median", 1.0}}}}}},
      {{"op", "copy"}, {"status", "ok"}, {"variant", "lib"}, {"timing", {{"seconds", {{"median", 3.0}}}}}}};
  const auto m = query::Metric::parse("time");
  ASSERT_TRUE(m.lower_is_better);
  const auto r = query::ratios(recs, query::Selection::parse("variant=a"), query::Selection::parse("variant=lib"), m,
                               query::one_group());
  ASSERT_EQ(r.pairs.size(), 1u);
  EXPECT_DOUBLE_EQ(r.pairs[0].own.value, 1.0);
  EXPECT_DOUBLE_EQ(r.pairs[0].ratio, 3.0);
  EXPECT_FALSE(query::Metric::parse("timing.seconds.median:higher").lower_is_better);
  EXPECT_TRUE(query::Metric::parse("lat.ns:lower").lower_is_better);
  EXPECT_THROW(query::Metric::parse("gbs:faster"), Error);
}

TEST(Query, RateIsGflopsForAnOpRatedByFlops) {
  const std::vector<nlohmann::json> recs = {
      {{"op", "gemm"}, {"status", "ok"}, {"gflops", 500.0}, {"gbs", 9000.0}},
      {{"op", "gemm"}, {"status", "ok"}, {"gflops", 700.0}, {"gbs", 10.0}}};
  const auto b = query::best_per_group(recs, {}, query::Metric{}, query::one_group());
  ASSERT_EQ(b.groups.size(), 1u);
  EXPECT_DOUBLE_EQ(b.groups[0].value, 700.0);
}

TEST(Query, BestOrFailureShowsAFailureAndASkipOnlyWhenAlone) {
  const std::vector<nlohmann::json> recs = {
      {{"device", "d"}, {"op", "copy"}, {"sizes", {{"n", 1}}}, {"status", "ok"}, {"gbs", 5.0}},
      {{"device", "d"}, {"op", "copy"}, {"sizes", {{"n", 1}}}, {"status", "failed"}},
      {{"device", "d"}, {"op", "copy"}, {"sizes", {{"n", 1}}}, {"status", "ok"}, {"gbs", 9.0}},
      {{"device", "d"}, {"op", "copy"}, {"sizes", {{"n", 2}}}, {"status", "skipped"}},
      {{"device", "d"}, {"op", "copy"}, {"sizes", {{"n", 2}}}, {"status", "ok"}, {"gbs", 3.0}},
      {{"device", "d"}, {"op", "copy"}, {"sizes", {{"n", 2}}}, {"status", "ok"}, {"gbs", 4.0}},
      {{"device", "d"}, {"op", "copy"}, {"sizes", {{"n", 3}}}, {"status", "skipped"}}};
  const auto out = query::best_or_failure_per_group(recs, query::Metric{}, query::group_by({"device", "sizes"}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0]["status"], "failed");
  EXPECT_EQ(out[1]["gbs"], 4.0);
  EXPECT_EQ(out[2]["status"], "skipped");
}

TEST(Query, SelectionMatchesFieldsListsPresenceAndDottedPaths) {
  const nlohmann::json r = {{"op", "gemm"},
                            {"precision", "S"},
                            {"auto", {{"chosen", "cuda/gemm/regblock"}}},
                            {"sizes", {{"m", 256}, {"ta", false}}}};
  EXPECT_TRUE(query::Selection::parse("op=gemm,precision=S|D").matches(r));
  EXPECT_FALSE(query::Selection::parse("op=gemm,precision=D").matches(r));
  EXPECT_TRUE(query::Selection::parse("auto.chosen=*").matches(r));
  EXPECT_FALSE(query::Selection::parse("kind=*").matches(r));
  EXPECT_TRUE(query::Selection::from_json({{"sizes.m", 256}, {"sizes.ta", false}}, "t").matches(r));
  EXPECT_FALSE(query::Selection::from_json({{"sizes.m", {128, 512}}}, "t").matches(r));
  EXPECT_THAT([] { query::Selection::parse("op"); }, ::testing::Throws<Error>());
  // A list of objects is a union: a record matching any of them.
  const auto either = query::Selection::from_json(
      nlohmann::json::array({{{"op", "gemm"}, {"precision", "D"}}, {{"auto.chosen", "cuda/gemm/regblock"}}}), "t");
  EXPECT_TRUE(either.matches(r));
  EXPECT_EQ(either.alternatives().size(), 2u);
  EXPECT_FALSE(query::Selection::from_json(
                   nlohmann::json::array({{{"op", "gemm"}, {"precision", "D"}}, {{"op", "spmv"}}}), "t")
                   .matches(r));
  try {
    query::Selection::from_json(nlohmann::json::array({{{"op", "gemm"}}, "spmv"}), "spec.json: targets[1]: select");
    FAIL() << "a list item that is no object was taken";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("spec.json: targets[1]: select[1]"));
  }
  EXPECT_THROW(query::Selection::from_json(nlohmann::json::array(), "t"), Error);
  try {
    query::Selection::from_json({{"op", {{"a", 1}}}}, "spec.json: targets[0]");
    FAIL() << "an object value that is no range was taken";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("spec.json: targets[0]: 'op': a range is"));
  }
  // A range of numbers: at least, at most, or both (edges included); not a number: no match.
  EXPECT_TRUE(query::Selection::from_json({{"sizes.m", {{"at_least", 256}}}}, "t").matches(r));
  EXPECT_FALSE(query::Selection::from_json({{"sizes.m", {{"at_least", 257}}}}, "t").matches(r));
  EXPECT_TRUE(query::Selection::from_json({{"sizes.m", {{"at_least", 100}, {"at_most", 256}}}}, "t").matches(r));
  EXPECT_FALSE(query::Selection::from_json({{"sizes.m", {{"at_most", 255.5}}}}, "t").matches(r));
  EXPECT_FALSE(query::Selection::from_json({{"op", {{"at_least", 0}}}}, "t").matches(r));
  EXPECT_THROW(query::Selection::from_json({{"sizes.m", {{"at_least", "1"}}}}, "t"), Error);
}

TEST(Query, TargetsAreMetOrMissedAtTheirEdges) {
  std::mt19937_64 rng(test::fresh_seed());
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::vector<std::pair<std::string, double>> v;
  for (int i = 0; i < 9; ++i) v.emplace_back(fmt::format("g{}", i), u(rng));
  const auto s = query::summarize(v);
  auto t = query::Target::from_json({{"at_least", s.geomean}}, "t");
  EXPECT_TRUE(query::check(t, s).met);
  t.at_least = s.geomean * (1 + 1e-9);
  const auto missed = query::check(t, s);
  EXPECT_FALSE(missed.met);
  EXPECT_THAT(missed.text, HasSubstr("missed: geomean"));
  EXPECT_THAT(missed.text, HasSubstr(s.min_at));
  t = query::Target::from_json({{"stat", "min"}, {"at_least", s.min}, {"at_most", s.max}}, "t");
  EXPECT_TRUE(query::check(t, s).met);
  t = query::Target::from_json({{"stat", "max"}, {"at_most", s.max * 0.999}}, "t");
  EXPECT_FALSE(query::check(t, s).met);
  EXPECT_FALSE(query::check(t, query::Summary{}).met);  // nothing measured misses
  EXPECT_THROW(query::Target::from_json({{"stat", "mean"}, {"at_least", 1}}, "t"), Error);
  EXPECT_THROW(query::Target::from_json({{"stat", "min"}}, "t"), Error);
}

// A reported figure (a published comparison, a model's input) prints its statistic and is
// never met or missed; it takes no bound, and a bound without "report" is still required.
TEST(Query, AReportedFigureIsNeitherMetNorMissed) {
  std::mt19937_64 rng(test::fresh_seed());
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::vector<std::pair<std::string, double>> v;
  for (int i = 0; i < 5; ++i) v.emplace_back(fmt::format("g{}", i), u(rng));
  const auto s = query::summarize(v);
  const auto t = query::Target::from_json({{"stat", "max"}, {"report", true}}, "t");
  const auto figure = query::check(t, s);
  EXPECT_TRUE(figure.met);
  EXPECT_DOUBLE_EQ(figure.figure, s.max);
  EXPECT_THAT(figure.text, HasSubstr("figure: max"));
  EXPECT_THAT(figure.text, HasSubstr(s.max_at));
  EXPECT_EQ(t.text(), "max (reported)");
  EXPECT_TRUE(query::check(t, query::Summary{}).met);  // nothing measured is said, not a miss
  EXPECT_THAT(query::check(t, query::Summary{}).text, HasSubstr("nothing was measured"));
  try {
    query::Target::from_json({{"report", true}, {"at_least", 1}}, "t");
    FAIL() << "a reported figure took a bound";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("t: 'report': a reported figure has no bound"));
  }
  EXPECT_THROW(query::Target::from_json({{"report", "yes"}}, "t"), Error);
  EXPECT_THROW(query::Target::from_json({{"report", false}}, "t"), Error);
}

TEST(Query, ASpecsTargetsAreCheckedWithClearErrors) {
  const nlohmann::json spec = {{"targets",
                                {{{"name", "own vs lib"},
                                  {"select", {{"kind", "kernel"}}},
                                  {"baseline", {{"kind", "library"}}},
                                  {"by", {"device", "precision", "sizes"}},
                                  {"metric", "gbs"},
                                  {"at_least", 0.5}}}}};
  const auto checks = query::checks_of(spec, "spec.json");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_TRUE(checks[0].baseline.has_value());
  auto bad = spec;
  bad["targets"][0]["treshold"] = 1;
  try {
    query::checks_of(bad, "spec.json");
    FAIL() << "an unknown key was taken";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("spec.json: targets[0] ('own vs lib'): 'treshold': unknown key"));
  }
  bad = spec;
  bad["targets"][0].erase("select");
  EXPECT_THROW(query::checks_of(bad, "spec.json"), Error);
  bad = spec;
  bad["targets"][0]["by"] = "device";
  EXPECT_THROW(query::checks_of(bad, "spec.json"), Error);
  EXPECT_TRUE(query::checks_of(nlohmann::json{{"op", "copy"}}, "s").empty());
}

// `hetbench check` runs the spec's experiment on the host and checks its targets: one met
// (COPY's best host kernel above 0 GB/s), one missed (above 1e12 GB/s); then reads the
// recorded folder instead of running again, with the same verdicts.
TEST(Query, CheckRunsTheSpecAndPrintsEachTargetMetOrMissed) {
  test::TempDir tmp;
  const auto spec = tmp.path() / "copy-targets.json";
  const nlohmann::json j = {
      {"name", "copy-targets"},
      {"devices", "host"},
      {"precisions", {"S"}},
      {"reps", 2},
      {"runs", {{{"op", "copy"}, {"variants", "all"}, {"sizes", {"1000", "4099"}}}}},
      {"targets",
       {{{"name", "host copy runs"}, {"select", {{"op", "copy"}}}, {"metric", "gbs"}, {"stat", "min"}, {"at_least", 1e-9}},
        {{"name", "host copy at light speed"}, {"select", {{"op", "copy"}}}, {"metric", "gbs"}, {"at_least", 1e12}},
        {{"name", "host copy GB/s"}, {"select", {{"op", "copy"}}}, {"metric", "gbs"}, {"stat", "max"}, {"report", true}}}}};
  test::write_text(spec, j.dump(2));
  const auto out = tmp.path() / "out";
  auto r = test::run_hetbench(fmt::format("check {} --out {} --no-isolate", spec.string(), out.string()),
                              "HETBENCH_DB=none");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("host copy runs: met: min"));
  EXPECT_THAT(r.output, HasSubstr("host copy at light speed: missed: geomean"));
  EXPECT_THAT(r.output, HasSubstr("host copy GB/s: figure: max"));
  EXPECT_THAT(r.output, HasSubstr("check: 1 of 2 targets met, 1 figure reported"));
  std::vector<std::filesystem::path> dirs;
  for (const auto& d : std::filesystem::directory_iterator(out)) dirs.push_back(d.path());
  ASSERT_EQ(dirs.size(), 1u);
  // Read back: the same verdicts, as JSON lines and as one JSON document.
  auto met_only = j;
  met_only["targets"].erase(2);
  met_only["targets"].erase(1);
  test::write_text(spec, met_only.dump(2));
  r = test::run_hetbench(fmt::format("check {} {} --format jsonl 2>/dev/null", spec.string(), dirs[0].string()));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto line = nlohmann::json::parse(r.output.substr(0, r.output.find('\n')));
  EXPECT_EQ(line["name"], "host copy runs");
  EXPECT_TRUE(line["met"].get<bool>());
  EXPECT_EQ(line["groups"].size(), 2u);  // one per size (and the one experiment)
  r = test::run_hetbench(fmt::format("check {} {} --format json 2>/dev/null", spec.string(), dirs[0].string()));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(doc["met"], 1);
  ASSERT_EQ(doc["targets"].size(), 1u);
  EXPECT_EQ(doc["targets"][0], line);
  // --filter narrows the spec's experiment as it narrows a sweep: one size, one group.
  r = test::run_hetbench(fmt::format("check {} --out {} --no-isolate --filter '/n=4099/' --format jsonl 2>/dev/null",
                                     spec.string(), (tmp.path() / "out2").string()),
                         "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto at = r.output.find("{\"figure\"");  // after the run's progress on stderr
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output.substr(at, r.output.find('\n', at) - at))["groups"].size(), 1u);
  // With experiment folders there is no run to narrow: --filter is refused, not ignored.
  r = test::run_hetbench(fmt::format("check {} {} --filter '/n=4099/'", spec.string(), dirs[0].string()));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("check: --filter '/n=4099/' narrows the spec's own run, not the experiment folders"));
  // Bad input: one error naming the file and the target.
  met_only["targets"][0]["stat"] = "mean";
  test::write_text(spec, met_only.dump(2));
  r = test::run_hetbench(fmt::format("check {} {}", spec.string(), dirs[0].string()));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("targets[0] ('host copy runs'): 'stat': 'mean' is not geomean, min or max"));
  met_only["targets"][0]["stat"] = "min";
  test::write_text(spec, met_only.dump(2));
  r = test::run_hetbench(fmt::format("check {} {}", spec.string(), (tmp.path() / "nowhere").string()));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("nowhere' is not an experiment folder"));
}

// per_device: each group's best over a fact of its device, read from experiment.json's
// device descriptions (the host link's yardstick is NVML's PCIe rate; here the host's
// compute units stand in): the ratio is exact, a device without the fact is not counted,
// and a target with both a baseline and per_device is refused.
TEST(Query, PerDeviceDividesByTheDevicesOwnFact) {
  test::TempDir tmp;
  const auto spec = tmp.path() / "per-device.json";
  nlohmann::json j = {
      {"name", "per-device"},
      {"devices", "host"},
      {"precisions", {"S"}},
      {"reps", 2},
      {"runs", {{{"op", "copy"}, {"variants", {"loop"}}, {"sizes", {"4099"}}}}},
      {"targets",
       {{{"name", "GB/s per compute unit"}, {"select", {{"op", "copy"}}}, {"metric", "gbs"},
         {"per_device", "compute_units"}, {"stat", "min"}, {"at_least", 1e-9}},
        {{"name", "per missing fact"}, {"select", {{"op", "copy"}}}, {"metric", "gbs"},
         {"per_device", "extra.pcie_practical_gbs"}, {"report", true}}}}};
  test::write_text(spec, j.dump(2));
  const auto out = tmp.path() / "out";
  auto r = test::run_hetbench(fmt::format("check {} --out {} --no-isolate --format jsonl 2>/dev/null", spec.string(),
                                          out.string()),
                              "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<nlohmann::json> lines;
  for (std::size_t at = r.output.find("{\"figure\""); at != std::string::npos; at = r.output.find("{\"figure\"", at + 1))
    lines.push_back(nlohmann::json::parse(r.output.substr(at, r.output.find('\n', at) - at)));
  ASSERT_EQ(lines.size(), 2u) << r.output;
  ASSERT_EQ(lines[0]["groups"].size(), 1u);
  const auto& g = lines[0]["groups"][0];
  EXPECT_EQ(g["baseline"], "device compute_units");
  EXPECT_GT(g["baseline_value"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(g["ratio"].get<double>(), g["value"].get<double>() / g["baseline_value"].get<double>());
  EXPECT_TRUE(lines[0]["met"].get<bool>());
  EXPECT_EQ(lines[1]["groups"].size(), 0u);
  EXPECT_THAT(lines[1]["unpaired"][0].get<std::string>(), HasSubstr("has no fact extra.pcie_practical_gbs"));
  j["targets"][0]["baseline"] = {{"op", "copy"}};
  EXPECT_THROW(query::checks_of(j, "spec.json"), Error);
}

// The campaign specs shipped in bench/targets/ stay readable: each is a spec the sweep
// takes, with targets that parse and select ops its runs measure.
TEST(Query, ShippedTargetSpecsParse) {
  int specs = 0;
  for (const auto& f : std::filesystem::directory_iterator(test::source_dir() + "/bench/targets")) {
    if (f.path().extension() != ".json") continue;
    ++specs;
    SCOPED_TRACE(f.path().string());
    const Experiment e = experiment_from_file(f.path().string());
    const auto checks = query::checks_of(test::read_json(f.path()), f.path().string());
    ASSERT_FALSE(checks.empty());
    std::set<std::string> ops;
    for (const auto& r : e.runs) ops.insert(r.op);
    for (const auto& c : checks)
      for (const auto& alt : c.select.alternatives()) {
        ASSERT_TRUE(alt.contains("op")) << c.name;
        for (const auto& op : alt["op"].is_array() ? alt["op"] : nlohmann::json::array({alt["op"]}))
          EXPECT_TRUE(ops.count(op.get<std::string>())) << c.name << " selects op " << op << ", which no run measures";
      }
  }
  EXPECT_GE(specs, 2);
}
