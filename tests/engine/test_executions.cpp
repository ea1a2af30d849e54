// Executions (docs/measurement.md): a point measured in several processes of its own and
// pooled into one record whose round spread spans the processes; replay repeats them.
#include <algorithm>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "engine/measure/executions.hpp"
#include "hetbench/error.hpp"
#include "test_util.hpp"
#include "util/stats.hpp"
#include "variant_sweep.hpp"

using namespace hetbench;
using namespace hetbench::test;

namespace {

// An execution's record: `n` samples around `median` in two rounds, with rates.
nlohmann::json execution(std::mt19937_64& rng, double median, int n, double max_ratio) {
  std::uniform_real_distribution<double> jitter(0.999, 1.001);
  std::vector<double> s;
  for (int i = 0; i < n; ++i) s.push_back(median * jitter(rng));
  const Stats st = compute_stats(s);
  nlohmann::json t = {{"samples", s},      {"seconds", to_json(st)}, {"reps", st.n},
                      {"round_samples", {n / 2, n - n / 2}},         {"fresh_buffer_rounds", 1},
                      {"measured_s", 1.0}, {"wall_s", 2.0},          {"stop", "fixed_count"},
                      {"sm_clock_mhz", std::vector<unsigned>(n, 1980)}};
  return {{"point", 4},
          {"status", "ok"},
          {"timing", t},
          {"gflops", 2.0 / st.median * 1e-9},
          {"gbs", 8.0 / st.median * 1e-9},
          {"validation", {{"passed", true}, {"max_err_over_bound", max_ratio}}}};
}

}  // namespace

TEST(Executions, MergePoolsSamplesRoundsAndRates) {
  const auto seed = fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  // The second process is 5 % slower: its rounds agree with each other, not with the first's.
  const std::vector<nlohmann::json> recs{execution(rng, 1e-3, 10, 0.2), execution(rng, 1.05e-3, 9, 0.7),
                                         execution(rng, 1e-3, 11, 0.1)};
  const auto m = merge_executions(recs);
  const auto& t = m["timing"];
  EXPECT_EQ(t["samples"].size(), 30u);
  EXPECT_EQ(t["reps"], 30);
  EXPECT_EQ(t["round_samples"], nlohmann::json({5, 5, 4, 5, 5, 6}));
  EXPECT_EQ(t["round_medians"].size(), 6u);
  EXPECT_EQ(t["executions"], 3);
  ASSERT_EQ(t["execution_medians"].size(), 3u);
  EXPECT_NEAR(t["execution_medians"][1].get<double>() / t["execution_medians"][0].get<double>(), 1.05, 0.003);
  // The slowest process's median over the fastest's.
  const auto medians = t["execution_medians"].get<std::vector<double>>();
  EXPECT_DOUBLE_EQ(t["execution_max_over_min"].get<double>(),
                   *std::max_element(medians.begin(), medians.end()) / *std::min_element(medians.begin(), medians.end()));
  // Within one process the rounds spread 0.2 % at most; across processes about 5 %.
  EXPECT_NEAR(t["round_spread"].get<double>(), 0.05, 0.004);
  EXPECT_EQ(t["fresh_buffer_rounds"], 3 + 2);
  EXPECT_DOUBLE_EQ(t["measured_s"].get<double>(), 3.0);
  EXPECT_EQ(t["sm_clock_mhz"].size(), 30u);
  const double med = t["seconds"]["median"];
  EXPECT_DOUBLE_EQ(med, compute_stats(t["samples"].get<std::vector<double>>()).median);
  EXPECT_NEAR(m["gflops"].get<double>() * med, 2.0e-9, 1e-20);  // the same work over the pooled median
  EXPECT_NEAR(m["gbs"].get<double>() * med, 8.0e-9, 1e-20);
  EXPECT_DOUBLE_EQ(m["validation"]["max_err_over_bound"].get<double>(), 0.7);  // the worst execution's
  // A per-sample mark one execution lacks is dropped rather than left unaligned.
  auto partial = recs;
  partial[1]["timing"].erase("sm_clock_mhz");
  EXPECT_FALSE(merge_executions(partial)["timing"].contains("sm_clock_mhz"));
  auto untimed = recs;
  untimed[2]["timing"].erase("samples");
  EXPECT_THROW(merge_executions(untimed), Error);
}

TEST(Executions, RunPoolsProcessesAndReplayRepeatsThem) {
  TempDir out;
  const auto r = run_hetbench("run dot --device host --variant loop --precision S --size 10007 --reps 6 --rounds 2 "
                              "--executions 3 --seed 7 --format json --no-db --out " + out.str());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dir = only_experiment(out.path());
  const auto recs = read_results(dir);
  ASSERT_EQ(recs.size(), 1u);
  const auto& t = recs[0]["timing"];
  EXPECT_EQ(recs[0]["status"], "ok");
  EXPECT_EQ(t["executions"], 3);
  EXPECT_EQ(t["samples"].size(), 18u);
  EXPECT_EQ(t["round_samples"], nlohmann::json({3, 3, 3, 3, 3, 3}));
  EXPECT_EQ(t["execution_medians"].size(), 3u);
  EXPECT_TRUE(recs[0]["validation"]["passed"].get<bool>());
  EXPECT_EQ(read_json(dir / "experiment.json")["runs"][0]["executions"], 3);
  // Replay measures the point as recorded: three processes again.
  TempDir again;
  const auto rp = run_hetbench("replay " + dir.string() + " --out " + again.str());
  ASSERT_EQ(rp.status, 0) << rp.output;
  const auto replayed = read_results(only_experiment(again.path()));
  ASSERT_EQ(replayed.size(), 1u);
  EXPECT_EQ(replayed[0]["timing"]["executions"], 3);
  EXPECT_EQ(replayed[0]["timing"]["samples"].size(), 18u);
}

TEST(Executions, BadCountsAreOneClearError) {
  expect_bad_input("run dot --device host --size 100 --executions 0",
                   "--executions 0 is impossible: expected 1 to 100 processes per point");
  expect_bad_input("run dot --device host --size 100 --executions 101", "--executions 101 is impossible");
  TempDir tmp;
  write_text(tmp.path() / "s.json", R"({"runs": [{"op": "dot", "sizes": "100", "devices": "host", "executions": -2}]})");
  expect_bad_input("sweep " + (tmp.path() / "s.json").string(), "key 'executions': -2 is impossible");
}
