// Rounds (docs/measurement.md): the timed repetitions of a point in rounds, each after the
// first on buffers allocated while the previous ones are held (so at other addresses),
// recorded per round; compare's threshold widened to the recorded round spread only where
// that spread is wider (docs/compare.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "compare/verdict.hpp"
#include "engine/measure/measure.hpp"
#include "hetbench/error.hpp"
#include "test_util.hpp"

using namespace hetbench;
using namespace hetbench::test;

namespace {

// The native pointer of every operand, per round, as the round listener sees them.
struct Placements {
  std::vector<std::vector<void*>> rounds;
  Placements() {
    set_round_listener([this](int round, const BufferMap& m) {
      EXPECT_EQ(round, static_cast<int>(rounds.size()));
      std::vector<void*> p;
      for (const auto& [name, b] : m) p.push_back(b->native());
      rounds.push_back(p);
    });
  }
  ~Placements() { set_round_listener(nullptr); }
};

RunSpec dot_run(const std::string& dev, const std::string& variant) {
  RunSpec r;
  r.op = "dot";
  r.variants = {variant};
  r.devices = dev;
  r.sizes = {"10007"};  // not a multiple of a work-group size
  r.precisions = {Precision::S};
  r.warmup = 1;
  return r;
}

}  // namespace

TEST(Rounds, EachRoundRunsOnFreshBuffersAndIsRecorded) {
  for (auto [dev, variant] : {std::pair{"host", "loop"}, std::pair{"opencl:0:0", "local"}}) {
    SCOPED_TRACE(dev);
    RunSpec r = dot_run(dev, variant);
    r.reps = 9;
    r.rounds = 3;
    Placements seen;
    const auto recs = run_points(r);
    ASSERT_EQ(recs.size(), 1u);
    ASSERT_EQ(recs[0].value("status", ""), "ok") << describe(recs[0]);
    ASSERT_EQ(seen.rounds.size(), 3u);
    // Every operand of a round lies elsewhere than in the round before: the new buffers
    // were allocated while the old ones were held (a round on the same buffers would
    // show the same pointers).
    for (std::size_t k = 1; k < seen.rounds.size(); ++k) {
      const std::set<void*> before(seen.rounds[k - 1].begin(), seen.rounds[k - 1].end());
      for (void* p : seen.rounds[k]) EXPECT_FALSE(before.count(p)) << "round " << k;
    }
    const auto& t = recs[0]["timing"];
    EXPECT_EQ(t["rounds"], 3);
    EXPECT_EQ(t["round_samples"], (nlohmann::json{3, 3, 3}));
    EXPECT_EQ(t["fresh_buffer_rounds"], 2);
    ASSERT_EQ(t["round_medians"].size(), 3u);
    std::vector<double> s = t["samples"];
    std::vector<double> meds;
    for (std::size_t k = 0; k < 3; ++k) {
      std::vector<double> part(s.begin() + 3 * k, s.begin() + 3 * k + 3);
      std::sort(part.begin(), part.end());
      meds.push_back(part[1]);
      EXPECT_DOUBLE_EQ(t["round_medians"][k].get<double>(), part[1]);
    }
    const auto [lo, hi] = std::minmax_element(meds.begin(), meds.end());
    EXPECT_NEAR(t["round_spread"].get<double>(), *hi / *lo - 1, 1e-12);
    // The last validation ran on the last round's buffers.
    EXPECT_TRUE(recs[0]["validation"]["passed"].get<bool>());
  }
}

// A round's new buffers are copied on the device from the ones before: its inputs must
// hold the same bytes, and an InOut operand (GEMM's C, which every run overwrites with
// alpha·A·B + beta·C) must come from the pristine copy, or the last timed run, on the
// last round's buffers, would not validate.
TEST(Rounds, FreshBuffersHoldTheOperandsTheFirstOnesHeld) {
  for (auto [dev, variant] : {std::pair{"host", "naive"}, std::pair{"opencl:0:0", "regblock"}}) {
    SCOPED_TRACE(dev);
    RunSpec r = dot_run(dev, variant);
    r.op = "gemm";
    r.sizes = {"67x45x29"};  // no multiple of a tile
    r.reps = 12;
    r.rounds = 4;
    std::vector<std::vector<unsigned char>> as;
    set_round_listener([&](int, const BufferMap& m) {
      Buffer& a = *m.at("A");
      std::vector<unsigned char> bytes(a.bytes());
      a.download(bytes.data());
      as.push_back(std::move(bytes));
    });
    const auto recs = run_points(r);
    set_round_listener(nullptr);
    ASSERT_EQ(recs.size(), 1u);
    ASSERT_EQ(recs[0].value("status", ""), "ok") << describe(recs[0]);
    EXPECT_EQ(recs[0]["timing"]["fresh_buffer_rounds"], 3);
    ASSERT_EQ(as.size(), 4u);
    for (std::size_t k = 1; k < as.size(); ++k) EXPECT_TRUE(as[k] == as[0]) << "round " << k;
    EXPECT_TRUE(recs[0]["validation"]["passed"].get<bool>());
  }
}

TEST(Rounds, AdaptiveRoundsShareTheBudgetAndOneRoundIsOnePlacement) {
  RunSpec r = dot_run("host", "loop");
  // The boundaries here follow the sample count alone, so that a stalled machine (a 2 ms
  // sample, a wall-clock cap reached before the first boundary) cannot move them: a
  // minimum time of 1 µs every sample exceeds, a noise target every point meets at its
  // first check, and a wall-clock cap no run comes near.
  r.min_samples = 12;
  r.min_time = 1e-6;
  r.max_noise = 100;
  r.timeout = 600;
  {
    Placements seen;
    const auto recs = run_points(r);  // the default: 4 rounds
    ASSERT_EQ(recs.size(), 1u);
    const auto& t = recs[0]["timing"];
    EXPECT_EQ(t["rounds"], 4);
    EXPECT_EQ(seen.rounds.size(), 4u);
    // The boundaries are cumulative: the first k rounds hold at least k quarters of
    // min_samples. (A round may hold fewer when the one before it ran past its boundary
    // waiting for its share of min_time, which a sample of 1 µs or more never does here.)
    std::size_t n = 0, k = 0;
    for (const auto& c : t["round_samples"]) {
      EXPECT_GE(c.get<std::size_t>(), 1u);
      n += c.get<std::size_t>();
      EXPECT_GE(n, 3 * ++k);
    }
    EXPECT_EQ(n, t["samples"].size());
  }
  r.rounds = 1;
  Placements seen;
  const auto recs = run_points(r);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(seen.rounds.size(), 1u);
  EXPECT_EQ(recs[0]["timing"]["fresh_buffer_rounds"], 0);
  EXPECT_EQ(recs[0]["timing"]["round_spread"], 0.0);
}

TEST(Rounds, RoundsEndAtFractionsOfTheMinimum) {
  StoppingTargets t;
  t.rounds = 4;
  t.min_samples = 10;
  t.min_time = 1.0;
  EXPECT_FALSE(round_over(t, 0, 2, 10.0));  // 2 of 10 samples: not yet a quarter
  EXPECT_TRUE(round_over(t, 0, 3, 0.25));
  EXPECT_FALSE(round_over(t, 0, 3, 0.2));  // a quarter of the samples, not of the time
  EXPECT_TRUE(round_over(t, 2, 8, 0.8));
  EXPECT_FALSE(round_over(t, 3, 1000, 100.0));  // the last round runs until the rule stops
  t.reps = 8;
  EXPECT_FALSE(round_over(t, 1, 3, 0));
  EXPECT_TRUE(round_over(t, 1, 4, 0));
}

namespace {

// A record of `n` samples around `median` (±0.1 %), in rounds whose spread is `spread`.
nlohmann::json record(std::mt19937_64& rng, double median, double spread) {
  std::uniform_real_distribution<double> u(-0.001, 0.001);
  std::vector<double> s;
  for (int i = 0; i < 40; ++i) s.push_back(median * (1 + u(rng)));
  nlohmann::json t = {{"samples", s}, {"rounds", 4}};
  if (spread >= 0) t["round_spread"] = spread;
  return {{"status", "ok"}, {"timing", t}};
}

}  // namespace

TEST(Rounds, CompareWidensItsThresholdOnlyToARecordedWiderSpread) {
  const auto seed = fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const double t = 0.02;
  // 3.5 % slower, a tight interval: slower against 2 %, whatever narrower spread is recorded.
  for (double spread : {-1.0, 0.0, 0.01}) {
    const auto j = judge_records(record(rng, 1e-3, spread), record(rng, 1.035e-3, spread), t);
    EXPECT_EQ(j.verdict, Verdict::slower) << spread;
    EXPECT_DOUBLE_EQ(j.threshold, t);
    EXPECT_EQ(j.threshold_from, "--threshold");
  }
  // The candidate's rounds differed by 5 %: the pair is judged against 5 %, and same.
  auto j = judge_records(record(rng, 1e-3, 0.004), record(rng, 1.035e-3, 0.05), t);
  EXPECT_EQ(j.verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(j.threshold, 0.05);
  EXPECT_EQ(j.threshold_from, "candidate's round spread");
  j = judge_records(record(rng, 1e-3, 0.06), record(rng, 0.95e-3, 0.0), t);
  EXPECT_EQ(j.verdict, Verdict::same);
  EXPECT_EQ(j.threshold_from, "reference's round spread");
  // A spread is no licence for anything: 10 % slower is still slower.
  j = judge_records(record(rng, 1e-3, 0.05), record(rng, 1.10e-3, 0.05), t);
  EXPECT_EQ(j.verdict, Verdict::slower);
  EXPECT_DOUBLE_EQ(recorded_round_spread(nlohmann::json{{"status", "ok"}}), 0);
}

// A record whose GPU throttled ran its repetitions at different clocks: compare judges
// the pair against that clock range (max/min - 1 of the per-sample SM clocks) as against
// a round spread, and says so; an unthrottled record's clock wobble changes nothing.
TEST(Rounds, AThrottledRecordIsJudgedAgainstItsClockRange) {
  const auto seed = fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const double t = 0.02;
  auto clocks = [](nlohmann::json r, std::vector<unsigned> mhz, int throttled) {
    r["timing"]["sm_clock_mhz"] = mhz;
    r["timing"]["throttled_samples"] = throttled;
    return r;
  };
  const auto ref = record(rng, 1e-3, 0.0);
  // 3.5 % slower with clocks from 1980 down to 1875 MHz (5.6 %) while throttled: same.
  auto cand = clocks(record(rng, 1.035e-3, 0.0), {1980, 1920, 1875, 1980}, 2);
  EXPECT_NEAR(recorded_throttle_spread(cand), 1980.0 / 1875 - 1, 1e-12);
  auto j = judge_records(ref, cand, t);
  EXPECT_EQ(j.verdict, Verdict::same) << j.why;
  EXPECT_EQ(j.threshold_from, "candidate throttled: its clock range");
  EXPECT_NEAR(j.threshold, 1980.0 / 1875 - 1, 1e-12);
  // The same clocks without a throttle mark: the threshold stays, and the pair is slower.
  j = judge_records(ref, clocks(record(rng, 1.035e-3, 0.0), {1980, 1920, 1875, 1980}, 0), t);
  EXPECT_EQ(j.verdict, Verdict::slower);
  EXPECT_EQ(j.threshold_from, "--threshold");
  // The reference throttled; unread clocks (0) are left out of the range.
  j = judge_records(clocks(record(rng, 1e-3, 0.0), {0, 1980, 1830}, 1), record(rng, 0.97e-3, 0.0), t);
  EXPECT_EQ(j.verdict, Verdict::same);
  EXPECT_EQ(j.threshold_from, "reference throttled: its clock range");
  EXPECT_DOUBLE_EQ(recorded_throttle_spread(nlohmann::json{{"status", "ok"}}), 0);
}

// A spread wider than --max-threshold (default 25 %) would make nearly anything `same`:
// such a pair is ambiguous and says why; a clear gap beyond it is still a verdict.
TEST(Rounds, ASameOnATooWideThresholdIsAmbiguous) {
  const auto seed = fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const double t = 0.02;
  auto j = judge_records(record(rng, 1e-3, 0.0), record(rng, 1.2e-3, 0.40), t);
  EXPECT_EQ(j.verdict, Verdict::ambiguous) << j.why;
  EXPECT_DOUBLE_EQ(j.threshold, 0.40);
  EXPECT_NE(j.why.find("--max-threshold 25%"), std::string::npos) << j.why;
  // The same pair under a looser limit is the same; a spread at the limit still is.
  EXPECT_EQ(judge_records(record(rng, 1e-3, 0.0), record(rng, 1.2e-3, 0.40), t, 0.5).verdict, Verdict::same);
  EXPECT_EQ(judge_records(record(rng, 1e-3, 0.25), record(rng, 1.01e-3, 0.0), t).verdict, Verdict::same);
  // Twice as slow is beyond even a 40 % threshold: slower.
  EXPECT_EQ(judge_records(record(rng, 1e-3, 0.0), record(rng, 2e-3, 0.40), t).verdict, Verdict::slower);
  // The option in percent, no smaller than --threshold.
  EXPECT_DOUBLE_EQ(max_threshold_fraction(25, t), 0.25);
  EXPECT_THROW(max_threshold_fraction(1, t), Error);
  EXPECT_THROW(max_threshold_fraction(std::nan(""), t), Error);
}
