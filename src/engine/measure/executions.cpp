#include "engine/measure/executions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "hetbench/error.hpp"
#include "util/stats.hpp"

namespace hetbench {

namespace {

std::vector<double> samples_of(const nlohmann::json& rec) {
  const auto& t = rec.value("timing", nlohmann::json::object());
  if (!t.contains("samples") || t["samples"].empty())
    throw Error(fmt::format("point {}: an execution without timed samples cannot be pooled",
                            rec.value("point", nlohmann::json()).dump()));
  return t["samples"].get<std::vector<double>>();
}

// Appends b's per-sample array `key` to a's; drops it when one of them lacks it, so that
// it stays parallel to the samples.
void concat_marks(nlohmann::json& into, const nlohmann::json& t, const char* key) {
  if (!into.contains(key)) return;
  if (!t.contains(key)) {
    into.erase(key);
    return;
  }
  for (const auto& x : t[key]) into[key].push_back(x);
}

}  // namespace

nlohmann::json merge_executions(const std::vector<nlohmann::json>& records) {
  if (records.empty()) throw Error("merge_executions: no records");
  nlohmann::json out = records.front();
  auto& t = out["timing"];
  std::vector<double> samples;
  std::vector<std::size_t> rounds;
  std::vector<double> medians;
  double measured = 0, wall = 0;
  int fresh = 0;
  std::set<std::string> reasons;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    const auto s = samples_of(r);
    const auto& ti = r["timing"];
    samples.insert(samples.end(), s.begin(), s.end());
    if (ti.contains("round_samples"))
      for (const auto& n : ti["round_samples"]) rounds.push_back(n.get<std::size_t>());
    else
      rounds.push_back(s.size());
    medians.push_back(median_interval(s).median);
    measured += ti.value("measured_s", 0.0);
    wall += ti.value("wall_s", 0.0);
    // Every execution's first round is on buffers of a process of its own: fresh too.
    fresh += ti.value("fresh_buffer_rounds", 0) + (i > 0 ? 1 : 0);
    for (const auto& x : ti.value("throttle_reasons", nlohmann::json::array())) reasons.insert(x.get<std::string>());
    if (i > 0) {
      for (const char* k : {"sm_clock_mhz", "power_w", "temperature_c", "cpu_clock_mhz"}) concat_marks(t, ti, k);
      concat_marks(t, ti, "throttled");
      t["stop"] = ti.value("stop", t.value("stop", ""));
    }
    // The worst validation: the pooled record passes only where every execution did.
    if (i > 0 && r.contains("validation") && out.contains("validation") &&
        r["validation"].value("max_err_over_bound", 0.0) > out["validation"].value("max_err_over_bound", 0.0))
      out["validation"] = r["validation"];
  }
  const Stats st = compute_stats(samples);
  const double old_median = t["seconds"].value("median", 0.0);
  t["samples"] = samples;
  t["seconds"] = to_json(st);
  t["reps"] = st.n;
  const double rel = st.rel_half_width();
  t["rel_half_width"] = std::isfinite(rel) ? nlohmann::json(rel) : nlohmann::json(nullptr);
  t["measured_s"] = measured;
  t["wall_s"] = wall;
  t["round_samples"] = rounds;
  const auto rm = round_medians(samples, rounds);
  t["round_medians"] = rm;
  t["round_spread"] = round_spread(rm);
  t["fresh_buffer_rounds"] = fresh;
  t["executions"] = records.size();
  t["execution_medians"] = medians;
  // The slowest process's median over the fastest's: what changes between processes.
  if (const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end()); lo != medians.end() && *lo > 0)
    t["execution_max_over_min"] = *hi / *lo;
  if (t.contains("throttled")) {
    t["throttled_samples"] = std::count(t["throttled"].begin(), t["throttled"].end(), 1);
    t["throttle_reasons"] = reasons;
  }
  // Rates are the first execution's work over the pooled median (each is proportional
  // to 1 / median).
  if (old_median > 0 && st.median > 0)
    for (const char* k : {"gflops", "gbs", "raw_gbs", "pct_ceiling", "pct_bw"})
      if (out.contains(k) && out[k].is_number()) out[k] = out[k].get<double>() * old_median / st.median;
  if (out.contains("ns_per_load") && old_median > 0)
    out["ns_per_load"] = out["ns_per_load"].get<double>() * st.median / old_median;
  return out;
}

}  // namespace hetbench
