// Noise-aware measurement: the median's interval, the stopping rule on synthetic sample
// streams (no timing here), and real runs that record samples, stop reasons and caches.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/measure/measure.hpp"
#include "test_util.hpp"
#include "util/json_file.hpp"
#include "util/stats.hpp"

using namespace hetbench;
using namespace hetbench::test;
using testing::HasSubstr;

namespace {

std::vector<double> lognormal(std::mt19937_64& rng, std::size_t n, double median, double sigma) {
  std::lognormal_distribution<double> d(std::log(median), sigma);
  std::vector<double> x(n);
  for (auto& v : x) v = d(rng);
  return x;
}

}  // namespace

TEST(MedianInterval, RanksMatchLeBoudecTable) {
  // Le Boudec, table A.1 (1-based ranks): n = 10: x(2)..x(9); 20: x(6)..x(15); 30: x(10)..x(21).
  for (auto [n, lo, hi] : {std::tuple{10u, 1u, 8u}, std::tuple{20u, 5u, 14u}, std::tuple{30u, 9u, 20u}}) {
    auto r = median_ci_ranks(n);
    EXPECT_EQ(r.lo, lo) << n;
    EXPECT_EQ(r.hi, hi) << n;
    EXPECT_GE(r.level, 0.95) << n;
  }
  // Too few samples for 95 %: the whole range, at the confidence it has.
  auto r5 = median_ci_ranks(5);
  EXPECT_EQ(r5.lo, 0u);
  EXPECT_EQ(r5.hi, 4u);
  EXPECT_NEAR(r5.level, 1 - 2.0 / 32, 1e-12);
  EXPECT_NEAR(median_ci_ranks(6).level, 1 - 2.0 / 64, 1e-12);
  EXPECT_EQ(median_ci_ranks(1).hi, 0u);
  // Large n: no underflow, the normal approximation's ranks n/2 -+ 0.98 sqrt(n).
  auto big = median_ci_ranks(100000);
  EXPECT_NEAR(static_cast<double>(big.lo), 50000 - 0.98 * std::sqrt(100000.0), 3);
  EXPECT_GE(big.level, 0.95);
  EXPECT_LT(big.level, 0.952);
}

TEST(MedianInterval, SkewedSamplesStayPositiveAndBracketTheMedian) {
  const auto seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 50; ++trial) {
    auto x = lognormal(rng, 10 + trial, 1e-5, 1.5);
    // A few huge outliers, as a preempted host thread gives: they pull a t-interval of
    // the mean below zero, but not the median's interval.
    for (int i = 0; i < 3; ++i) x[static_cast<std::size_t>(i) * 3] = 1e-5 * (1e3 + i);
    const Stats s = compute_stats(x);
    SCOPED_TRACE("seed " + std::to_string(seed) + " trial " + std::to_string(trial));
    EXPECT_GT(s.ci95_lo, 0);
    EXPECT_GE(s.ci95_lo, s.min);
    EXPECT_LE(s.ci95_lo, s.median);
    EXPECT_LE(s.median, s.ci95_hi);
    EXPECT_LE(s.ci95_hi, s.max);
    // The O(n) selection agrees with the sort.
    const MedianInterval m = median_interval(x);
    EXPECT_EQ(m.lo, s.ci95_lo);
    EXPECT_EQ(m.hi, s.ci95_hi);
    EXPECT_EQ(m.median, s.median);
    EXPECT_EQ(m.level, s.ci_level);
  }
}

TEST(MedianInterval, PositiveWhereTheMeansIntervalIsNot) {
  // Nine 10 us runs and one of 10 ms: the Student-t interval of the mean (t = 2.262 at
  // 9 degrees of freedom) reaches below zero; the median's is two of the samples.
  std::vector<double> x(9, 1e-5);
  x.push_back(1e-2);
  const Stats s = compute_stats(x);
  EXPECT_LT(s.mean - 2.262 * s.stddev / std::sqrt(10.0), 0);
  EXPECT_EQ(s.ci95_lo, 1e-5);
  EXPECT_EQ(s.ci95_hi, 1e-5);
  EXPECT_NEAR(s.ci_level, 1 - 2 * 11.0 / 1024, 1e-12);
}

TEST(MedianInterval, CoverageIsCloseToItsLevel) {
  const auto seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const int trials = 4000;
  for (std::size_t n : {12u, 20u, 51u, 200u}) {
    const double level = median_ci_ranks(n).level;
    int covered = 0;
    for (int t = 0; t < trials; ++t) {
      const Stats s = compute_stats(lognormal(rng, n, 2e-6, 0.8));  // true median 2e-6
      covered += s.ci95_lo <= 2e-6 && 2e-6 <= s.ci95_hi;
    }
    const double cov = static_cast<double>(covered) / trials;
    // 4.5 binomial standard deviations: a seeded test that fails by chance < 1e-5.
    const double sd = std::sqrt(level * (1 - level) / trials);
    EXPECT_NEAR(cov, level, 4.5 * sd) << "n " << n << " seed " << seed;
  }
}

TEST(MedianInterval, FasterOnlyWhenIntervalsSeparate) {
  const auto seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto x = lognormal(rng, 200, 1e-3, 0.05);  // 5 % spread: an interval of about +-0.9 %
  auto scaled = [&](double f) {
    auto y = x;
    for (auto& v : y) v *= f;
    return compute_stats(y);
  };
  const Stats a = compute_stats(x), b = scaled(1.10), c = scaled(1.001);
  EXPECT_TRUE(faster_beyond_noise(a, b)) << "seed " << seed;
  EXPECT_FALSE(faster_beyond_noise(b, a)) << "seed " << seed;
  // 0.1 % apart: a tie either way.
  EXPECT_FALSE(faster_beyond_noise(a, c) || faster_beyond_noise(c, a)) << "seed " << seed;
  EXPECT_FALSE(faster_beyond_noise(Stats{}, b));
}

namespace {

// Feeds a stream to the rule until it stops; the wall clock is simulated as the measured
// time plus `overhead_s` a sample.
StopReason feed(StoppingRule& rule, std::vector<double>& samples, const std::vector<double>& stream,
                double overhead_s = 0) {
  double wall = 0;
  for (std::size_t i = 0;; ++i) {
    if (auto r = rule.decide(samples, wall, false); r != StopReason::none) return r;
    if (i == stream.size()) return StopReason::none;
    samples.push_back(stream[i]);
    wall += stream[i] + overhead_s;
  }
}

StoppingTargets adaptive(double min_time, double timeout) {
  StoppingTargets t;
  t.min_time = min_time;
  t.timeout = timeout;
  return t;
}

}  // namespace

TEST(StoppingRule, StopsWhenConverged) {
  const auto seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto stream = lognormal(rng, 100000, 1e-3, 0.005);  // 0.5 % spread around 1 ms
  StoppingRule rule(adaptive(0.05, 15));
  std::vector<double> samples;
  ASSERT_EQ(feed(rule, samples, stream), StopReason::converged) << "seed " << seed;
  // min-time (50 ms of 1 ms samples) governs, not min-samples.
  EXPECT_GE(rule.measured(), 0.05);
  EXPECT_LT(samples.size(), 70u);
  EXPECT_LE(rule.rel_half_width(), 0.005);
  EXPECT_LE(compute_stats(samples).rel_half_width(), 0.005);
}

TEST(StoppingRule, MinimumSamplesAndTimeComeFirst) {
  StoppingTargets t = adaptive(0, 15);
  t.min_samples = 25;
  StoppingRule rule(t);
  std::vector<double> samples;
  EXPECT_EQ(feed(rule, samples, std::vector<double>(1000, 1e-3)), StopReason::converged);
  EXPECT_EQ(samples.size(), 25u);  // identical samples: converged as soon as allowed

  StoppingRule timed(adaptive(100, 1e9));  // 0.5 s samples: exact sums
  samples.clear();
  EXPECT_EQ(feed(timed, samples, std::vector<double>(1000, 0.5)), StopReason::converged);
  EXPECT_EQ(samples.size(), 200u);
}

TEST(StoppingRule, NoisyStreamHitsTheTimeCap) {
  const auto seed = fresh_seed();
  std::mt19937_64 rng(seed);
  // Spread far too wide for 0.5 % within the cap: 1 ms samples, 2 s cap with 1 ms of
  // overhead each, so about 1000 samples (a relative half-width of about 5 %).
  const auto stream = lognormal(rng, 100000, 1e-3, 1.0);
  StoppingRule rule(adaptive(0.5, 2));
  std::vector<double> samples;
  ASSERT_EQ(feed(rule, samples, stream, 1e-3), StopReason::time_cap) << "seed " << seed;
  EXPECT_GT(rule.rel_half_width(), 0.005);
  EXPECT_NEAR(static_cast<double>(samples.size()), 2 / (2e-3 * 1.4), 300);  // mean of the lognormal: e^0.5 ms
}

TEST(StoppingRule, SampleCapBoundsTinyKernels) {
  // 1 us samples never reach 0.5 s of measured time before 10000 samples.
  StoppingRule rule(StoppingTargets{});
  std::vector<double> samples;
  EXPECT_EQ(feed(rule, samples, std::vector<double>(20000, 1e-6)), StopReason::sample_cap);
  EXPECT_EQ(samples.size(), 10000u);
}

TEST(StoppingRule, FixedCountIgnoresTargetsAndCaps) {
  StoppingTargets t = adaptive(0.5, 1e-9);
  t.reps = 7;
  StoppingRule rule(t);
  std::vector<double> samples;
  EXPECT_EQ(feed(rule, samples, std::vector<double>(100, 1.0)), StopReason::fixed_count);
  EXPECT_EQ(samples.size(), 7u);
}

TEST(StoppingRule, InterruptStopsAtOnce) {
  StoppingRule rule(StoppingTargets{});
  std::vector<double> samples{1e-3, 2e-3};
  EXPECT_EQ(rule.decide(samples, 0.01, true), StopReason::interrupted);
  EXPECT_EQ(rule.decide(samples, 0.01, false), StopReason::none);
}

namespace {

nlohmann::json run_one(const std::string& args, int expect_status = 0) {
  TempDir out;
  auto r = run_hetbench(args + " --out " + out.str());
  EXPECT_EQ(r.status, expect_status) << args << "\n" << r.output;
  if (r.status != 0) return {};
  auto dir = only_experiment(out.path());
  auto recs = read_results(dir);
  EXPECT_EQ(recs.size(), 1u) << args;
  // results.csv stays one row per point (samples are in the JSONL only).
  std::ifstream csv(dir / "results.csv");
  std::size_t rows = 0;
  for (std::string line; std::getline(csv, line);) ++rows;
  EXPECT_EQ(rows, recs.size() + 1) << args;
  return recs.empty() ? nlohmann::json() : recs.front();
}

void expect_timing(const nlohmann::json& rec) {
  ASSERT_EQ(rec.value("status", ""), "ok") << describe(rec);
  const auto& t = rec["timing"];
  const auto& s = t["seconds"];
  const auto n = t["samples"].size();
  EXPECT_EQ(t["reps"], n);
  EXPECT_EQ(s["n"], n);
  EXPECT_GT(s["ci95_lo"].get<double>(), 0);
  EXPECT_LE(s["ci95_lo"].get<double>(), s["median"].get<double>());
  EXPECT_LE(s["median"].get<double>(), s["ci95_hi"].get<double>());
  double sum = 0;
  for (const auto& v : t["samples"]) sum += v.get<double>();
  EXPECT_NEAR(t["measured_s"].get<double>(), sum, 1e-9 * static_cast<double>(n) + 1e-12);
}

}  // namespace

TEST(Measure, AdaptiveRunRecordsSamplesStopAndInterval) {
  for (const char* dev : {"host --variant loop", "opencl:0:0 --variant simple"}) {
    auto rec = run_one(std::string("run axpy --precision S --size 4096 --min-time 0.02 --timeout 1 --device ") + dev);
    SCOPED_TRACE(dev);
    expect_timing(rec);
    const auto& t = rec["timing"];
    EXPECT_THAT((std::vector<std::string>{"converged", "time_cap", "sample_cap"}),
                testing::Contains(t["stop"].get<std::string>()));
    EXPECT_EQ(t["stopping"]["rule"], "adaptive");
    EXPECT_DOUBLE_EQ(t["stopping"]["max_noise_pct"].get<double>(), 0.5);
    EXPECT_EQ(t["cache"], "hot");
    EXPECT_GE(t["samples"].size(), 10u);
    if (t["stop"] == "converged") {
      EXPECT_LE(t["rel_half_width"].get<double>(), 0.005);
      EXPECT_GE(t["measured_s"].get<double>(), 0.02);
    }
    EXPECT_LE(t["wall_s"].get<double>(), 1.5);
  }
}

TEST(Measure, FixedRepsRecordExactlyThatMany) {
  auto rec = run_one("run dot --device host --variant loop --precision D --size 1000 --reps 7");
  expect_timing(rec);
  EXPECT_EQ(rec["timing"]["samples"].size(), 7u);
  EXPECT_EQ(rec["timing"]["stop"], "fixed_count");
  EXPECT_EQ(rec["timing"]["stopping"], (nlohmann::json{{"rule", "fixed"}, {"reps", 7}}));
}

TEST(Measure, ColdCacheIsFlushedAndRecorded) {
  for (const char* dev : {"host --variant loop", "opencl:0:0 --variant simple"}) {
    SCOPED_TRACE(dev);
    auto rec = run_one(std::string("run copy --precision S --size 2^16 --reps 5 --cache cold --device ") + dev);
    expect_timing(rec);
    EXPECT_EQ(rec["timing"]["cache"], "cold");
    EXPECT_GE(rec["timing"]["flush_bytes"].get<std::uint64_t>(), 2u << 20);
  }
}

TEST(Measure, DevicesReportTheLastLevelCache) {
  auto r = run_hetbench("devices --json");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  for (const auto& d : j["devices"])
    if (d["id"] == "host") EXPECT_GT(d["llc_bytes"].get<std::uint64_t>(), 0u) << d.dump();
  EXPECT_THAT(run_hetbench("devices").output, HasSubstr("last-level cache"));
}

TEST(Measure, BadValuesAreRefusedNamingThem) {
  TempDir out;
  for (auto [args, msg] : std::vector<std::pair<std::string, std::string>>{
           {"--max-noise 0", "--max-noise 0 is impossible"},
           {"--max-noise=-2", "--max-noise -2 is impossible"},
           {"--min-samples 0", "--min-samples 0 is impossible"},
           {"--min-time=-1", "--min-time -1 is impossible"},
           {"--timeout 0", "--timeout 0 is impossible"},
           {"--min-samples 50 --max-samples 20", "--max-samples 20 is impossible: below the minimum sample count 50"},
           {"--cache warm", "--cache 'warm' is impossible: expected hot or cold"},
           {"--reps 0", "--reps 0 is impossible"}}) {
    auto r = run_hetbench("run dot --device host --size 10 " + args + " --out " + out.str());
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(msg)) << args;
  }
  EXPECT_TRUE(std::filesystem::is_empty(out.path()));
  for (auto [key, msg] : std::vector<std::pair<std::string, std::string>>{
           {R"("max_noise": "low")", "key 'max_noise': expected a number"},
           {R"("timeout": -3)", "key 'timeout': -3 is impossible"},
           {R"("cache": "lukewarm")", "key 'cache': 'lukewarm' is impossible"},
           {R"("energy": 1)", "key 'energy': expected true or false"}}) {
    write_text(out.path() / "s.json", R"({"op": "dot", "sizes": ["10"], )" + key + "}");
    auto r = run_hetbench("sweep " + (out.path() / "s.json").string() + " --out " + (out.path() / "res").string());
    EXPECT_EQ(r.status, 2) << key << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("s.json: " + msg)) << key;
  }
}

TEST(Measure, SpecKeysAndSweepOptionsReachTheRecord) {
  TempDir out;
  write_text(out.path() / "s.json", R"({"op": "axpy", "devices": "host", "variants": ["loop"], "precisions": ["S"],
    "sizes": ["1000"], "min_time": 0.01, "timeout": 30, "min_samples": 12,
    "max_samples": 12, "cache": "cold"})");
  auto r = run_hetbench("sweep " + (out.path() / "s.json").string() + " --max-noise 2 --out " + out.str() + "/res");
  ASSERT_EQ(r.status, 0) << r.output;
  auto dir = only_experiment(out.path() / "res");
  auto rec = read_results(dir).at(0);
  const auto& st = rec["timing"]["stopping"];
  EXPECT_EQ(st["min_samples"], 12);
  EXPECT_EQ(st["min_time_s"], 0.01);
  // The timeout is far: on a loaded 2-core machine 12 cold-cache repetitions (an LLC
  // flush each) took more than 2 s; max_samples ends the point at the minimum instead.
  EXPECT_EQ(st["timeout_s"], 30);
  EXPECT_EQ(st["max_samples"], 12);
  EXPECT_DOUBLE_EQ(st["max_noise_pct"].get<double>(), 2);
  EXPECT_EQ(rec["timing"]["cache"], "cold");
  EXPECT_GE(rec["timing"]["samples"].size(), 12u);
  // experiment.json holds the runs as resolved, and they read back the same.
  auto run = read_json_file((dir / "experiment.json").string())["runs"][0];
  EXPECT_FALSE(run.contains("reps"));
  EXPECT_EQ(run["max_noise"], 2);
  EXPECT_EQ(to_json(run_spec_from_json(run, "experiment.json")), run);
}

namespace {

std::string first_cuda_device() {
  for (const auto& d : all_devices())
    if (d->info().backend == BackendKind::Cuda) return d->id();
  return "";
}

std::vector<nlohmann::json> run_copy(const std::string& dev, double min_time, bool energy) {
  RunSpec r;
  r.op = "copy";
  r.variants = {"vec16"};
  r.devices = dev;
  r.sizes = {"2^24"};
  r.precisions = {Precision::S};
  r.min_time = min_time;
  r.timeout = 5;
  r.energy = energy;
  return run_points(r);
}

}  // namespace

// Only where a GPU is: the lead's GPU run.
TEST(MeasureCuda, ClocksAndEnergyFromTheTimedRepetitions) {
  const auto dev = first_cuda_device();
  if (dev.empty()) GTEST_SKIP() << "no CUDA device";
  for (const auto& rec : run_copy(dev, 0.4, false)) {
    ASSERT_EQ(rec.value("status", ""), "ok") << describe(rec);
    const auto& t = rec["timing"];
    const auto& e = rec["energy"];
    if (!e.value("available", false)) {
      EXPECT_FALSE(e.value("reason", "").empty()) << e.dump();  // no NVML here
      continue;
    }
    EXPECT_EQ(t["sm_clock_mhz"].size(), t["samples"].size());
    EXPECT_EQ(t["throttled"].size(), t["samples"].size());
    EXPECT_EQ(t["power_w"].size(), t["samples"].size());
    EXPECT_EQ(t["temperature_c"].size(), t["samples"].size());
    EXPECT_GT(t["power_w"][0].get<double>(), 0);
    EXPECT_GT(t["temperature_c"][0].get<unsigned>(), 0u);
    EXPECT_LE(t["throttled_samples"].get<std::size_t>(), t["samples"].size());
    EXPECT_EQ(e["source"], "timed-reps") << e.dump();
    EXPECT_GT(e["energy_per_rep_j"].get<double>(), 0) << e.dump();
    EXPECT_EQ(e["reps"], t["samples"].size());
  }
}

TEST(MeasureCuda, ShortPointsMeasureEnergyOnlyWhenAsked) {
  const auto dev = first_cuda_device();
  if (dev.empty()) GTEST_SKIP() << "no CUDA device";
  for (bool asked : {false, true})
    for (const auto& rec : run_copy(dev, 0.001, asked)) {
      ASSERT_EQ(rec.value("status", ""), "ok") << describe(rec);
      const auto& e = rec["energy"];
      if (asked && e.value("available", false)) EXPECT_EQ(e["source"], "window") << e.dump();
      if (!asked) EXPECT_FALSE(e.value("available", true)) << e.dump();
    }
}
