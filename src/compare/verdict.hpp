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
};

// `threshold` is a fraction (0.02: 2 %). With r = cand/ref medians and its interval
// [cand.lo / ref.hi, cand.hi / ref.lo]:
//   slower    when the interval lies above 1 + threshold (a clear gap beyond the threshold),
//   faster    when it lies below 1 / (1 + threshold),
//   same      when it lies within [1 / (1 + threshold), 1 + threshold],
//   ambiguous otherwise (the interval straddles a threshold: more samples or less noise decide).
Judgement judge(const std::optional<MedianInterval>& ref, const std::optional<MedianInterval>& cand, double threshold);

}  // namespace hetbench
