// The verdict on two timings of one point (docs/compare.md): the interval of the ratio of
// their medians against an equivalence threshold. Pure: tested on synthetic samples.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "util/stats.hpp"

namespace hetbench {

// faster / slower: the candidate against the reference; invalid: a side has no timing
// (failed validation, an error, a skipped point).
enum class Verdict { faster, slower, same, ambiguous, invalid };
std::string_view to_string(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view s);
// --fail-on's names; throws Error naming an unknown one.
std::set<Verdict> parse_verdicts(const std::vector<std::string>& names, const std::string& option = "--fail-on");
// --threshold in percent to a fraction; throws Error when negative or not finite.
double threshold_fraction(double percent);

// A point's median and its distribution-free interval: from timing.samples, else (records
// that kept no samples) from timing.seconds; nullopt for a point that was not timed.
std::optional<MedianInterval> recorded_timing(const nlohmann::json& rec);

struct Judgement {
  Verdict verdict = Verdict::invalid;
  double ratio = 0, lo = 0, hi = 0;  // candidate / reference time: the medians', and the interval
  std::string why;
  // The threshold applied (a fraction) and where it came from: "--threshold", or the
  // round spread of the reference or the candidate where that was wider.
  double threshold = 0;
  std::string threshold_from = "--threshold";
};

// `threshold` is a fraction (0.02: 2 %). With r = cand/ref medians and its interval
// [cand.lo / ref.hi, cand.hi / ref.lo]:
//   slower    when the interval lies above 1 + threshold (a clear gap beyond the threshold),
//   faster    when it lies below 1 / (1 + threshold),
//   same      when it lies within [1 / (1 + threshold), 1 + threshold],
//   ambiguous otherwise (the interval straddles a threshold: more samples or less noise decide).
Judgement judge(const std::optional<MedianInterval>& ref, const std::optional<MedianInterval>& cand, double threshold);

// The spread between a record's rounds (timing.round_spread, docs/measurement.md): how
// far its per-placement medians are apart; 0 for a record of one round or none.
double recorded_round_spread(const nlohmann::json& rec);
// The clock range of a record that throttled (timing.throttled_samples > 0, NVIDIA):
// max/min − 1 of its per-sample SM clocks, how far apart the clocks its repetitions ran at
// were; 0 for a record that did not throttle or has no clocks.
double recorded_throttle_spread(const nlohmann::json& rec);
// judge() of two records with the threshold max(threshold, both round spreads, both
// throttle spreads): a
// difference no larger than what moving the buffers alone produced in one of the two
// measurements is not evidence of a change (docs/compare.md). Where that widened threshold
// exceeds `most` (--max-threshold), `same` says only that the noise hides any difference
// up to it, which no user means by "the same": such a pair is ambiguous instead, and says
// why. faster and slower stand (a gap beyond even a wide threshold is a gap).
inline constexpr double kMaxThreshold = 0.25;
Judgement judge_records(const nlohmann::json& ref, const nlohmann::json& cand, double threshold,
                        double most = kMaxThreshold);
// --max-threshold in percent to a fraction; throws Error when below `threshold` or not finite.
double max_threshold_fraction(double percent, double threshold);

}  // namespace hetbench
