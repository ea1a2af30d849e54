#include "compare/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetbench/error.hpp"

namespace hetbench {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "slower";
    case Verdict::same:
      return "same";
    case Verdict::ambiguous:
      return "ambiguous";
    case Verdict::invalid:
      return "invalid";
  }
  return "?";
}

std::optional<Verdict> parse_verdict(std::string_view s) {
  for (auto v : {Verdict::faster, Verdict::slower, Verdict::same, Verdict::ambiguous, Verdict::invalid})
    if (to_string(v) == s) return v;
  return std::nullopt;
}

std::set<Verdict> parse_verdicts(const std::vector<std::string>& names, const std::string& option) {
  std::set<Verdict> out;
  for (const auto& n : names) {
    auto v = parse_verdict(n);
    if (!v) throw Error(fmt::format("{} '{}': expected slower, faster, ambiguous, invalid or same", option, n));
    out.insert(*v);
  }
  return out;
}

double threshold_fraction(double pct) {
  if (!(pct >= 0) || !std::isfinite(pct))
    throw Error(fmt::format("--threshold {} is impossible: expected a percentage, 0 or more, e.g. 2", pct));
  return pct / 100;
}

std::optional<MedianInterval> recorded_timing(const nlohmann::json& rec) {
  if (rec.value("status", "") != "ok" || !rec.contains("timing")) return std::nullopt;
  const auto& t = rec["timing"];
  if (t.contains("samples") && !t["samples"].empty()) return median_interval(t["samples"].get<std::vector<double>>());
  const auto& s = t.value("seconds", nlohmann::json::object());
  if (!s.contains("median")) return std::nullopt;
  MedianInterval m;
  m.median = s["median"].get<double>();
  m.lo = s.value("ci95_lo", m.median);
  m.hi = s.value("ci95_hi", m.median);
  m.level = s.value("ci_level", 0.0);
  return m;
}

Judgement judge(const std::optional<MedianInterval>& ref, const std::optional<MedianInterval>& cand, double threshold) {
  Judgement j;
  if (!ref || !cand || !(ref->lo > 0) || !(cand->lo > 0)) {
    j.why = !ref ? "the reference was not timed" : !cand ? "the candidate was not timed" : "a time is not positive";
    return j;
  }
  j.threshold = threshold;
  j.ratio = cand->median / ref->median;
  j.lo = cand->lo / ref->hi;
  j.hi = cand->hi / ref->lo;
  const double up = 1 + threshold, down = 1 / up;
  if (j.lo > up) {
    j.verdict = Verdict::slower;
    j.why = fmt::format("ratio interval [{:.4f}, {:.4f}] above {:.4f}", j.lo, j.hi, up);
  } else if (j.hi < down) {
    j.verdict = Verdict::faster;
    j.why = fmt::format("ratio interval [{:.4f}, {:.4f}] below {:.4f}", j.lo, j.hi, down);
  } else if (j.lo >= down && j.hi <= up) {
    j.verdict = Verdict::same;
    j.why = fmt::format("ratio interval [{:.4f}, {:.4f}] within [{:.4f}, {:.4f}]", j.lo, j.hi, down, up);
  } else {
    j.verdict = Verdict::ambiguous;
    j.why = fmt::format("ratio interval [{:.4f}, {:.4f}] crosses {:.4f} or {:.4f}", j.lo, j.hi, down, up);
  }
  return j;
}

double recorded_round_spread(const nlohmann::json& rec) {
  if (!rec.contains("timing")) return 0;
  const auto& s = rec["timing"].value("round_spread", nlohmann::json(0.0));
  return s.is_number() && std::isfinite(s.get<double>()) && s.get<double>() > 0 ? s.get<double>() : 0;
}

double recorded_throttle_spread(const nlohmann::json& rec) {
  if (!rec.contains("timing")) return 0;
  const auto& t = rec["timing"];
  if (t.value("throttled_samples", 0) <= 0 || !t.contains("sm_clock_mhz")) return 0;
  double lo = 0, hi = 0;
  for (const auto& x : t["sm_clock_mhz"]) {
    const double mhz = x.is_number() ? x.get<double>() : 0;
    if (mhz <= 0) continue;
    lo = lo == 0 ? mhz : std::min(lo, mhz);
    hi = std::max(hi, mhz);
  }
  return lo > 0 ? hi / lo - 1 : 0;
}

Judgement judge_records(const nlohmann::json& ref, const nlohmann::json& cand, double threshold, double most) {
  // A throttled record's repetitions ran at different clocks: a difference within that
  // range is no more evidence than one within the spread between placements.
  const std::pair<double, const char*> widen[] = {{recorded_round_spread(ref), "reference's round spread"},
                                                  {recorded_round_spread(cand), "candidate's round spread"},
                                                  {recorded_throttle_spread(ref), "reference throttled: its clock range"},
                                                  {recorded_throttle_spread(cand), "candidate throttled: its clock range"}};
  double t = threshold;
  std::string from = "--threshold";
  for (const auto& [spread, name] : widen)
    if (spread > t) t = spread, from = name;
  Judgement j = judge(recorded_timing(ref), recorded_timing(cand), t);
  j.threshold = t;
  j.threshold_from = from;
  if (j.verdict == Verdict::same && t > most) {
    j.verdict = Verdict::ambiguous;
    j.why = fmt::format("{}, but the threshold {:.2f}% ({}) is above --max-threshold {:g}%: too noisy to call the same",
                        j.why, 100 * t, j.threshold_from, 100 * most);
  }
  return j;
}

double max_threshold_fraction(double pct, double threshold) {
  if (!std::isfinite(pct) || !(pct / 100 >= threshold))
    throw Error(fmt::format("--max-threshold {} is impossible: expected a percentage no smaller than --threshold ({:g})",
                            pct, 100 * threshold));
  return pct / 100;
}

}  // namespace hetbench
