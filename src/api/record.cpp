#include "hetbench/record.hpp"

#include <algorithm>
#include <cmath>

namespace hetbench {

std::string_view to_string(PointStatus s) {
  switch (s) {
    case PointStatus::ok: return "ok";
    case PointStatus::failed: return "failed";
    case PointStatus::error: return "error";
    case PointStatus::skipped: return "skipped";
    case PointStatus::crashed: return "crashed";
    case PointStatus::timeout: return "timeout";
    case PointStatus::interrupted: return "interrupted";
  }
  return "?";
}

std::optional<PointStatus> point_status_from(std::string_view s) {
  for (auto st : {PointStatus::ok, PointStatus::failed, PointStatus::error, PointStatus::skipped, PointStatus::crashed,
                  PointStatus::timeout, PointStatus::interrupted})
    if (to_string(st) == s) return st;
  return std::nullopt;
}

std::string_view to_string(StopReason r) {
  switch (r) {
    case StopReason::none: return "none";
    case StopReason::converged: return "converged";
    case StopReason::time_cap: return "time_cap";
    case StopReason::sample_cap: return "sample_cap";
    case StopReason::fixed_count: return "fixed_count";
    case StopReason::interrupted: return "interrupted";
  }
  return "?";
}

std::string_view to_string(ErrorStage s) {
  switch (s) {
    case ErrorStage::none: return "none";
    case ErrorStage::build: return "build";
    case ErrorStage::run: return "run";
    case ErrorStage::input: return "input";
  }
  return "?";
}

namespace {

nlohmann::json to_json(const PointTiming& t) {
  nlohmann::json j = {{"timed", t.include_transfers ? "kernel+transfers" : "kernel"},
                      {"timer", t.timer},
                      {"warmup", t.warmup},
                      {"reps", t.seconds.n},
                      {"rate_from", "median"},
                      {"seconds", to_json(t.seconds)}};
  if (t.stop == StopReason::none) return j;  // a timing built by hand (tests, old callers)
  const auto& g = t.targets;
  j["stop"] = to_string(t.stop);
  const double rel = t.seconds.rel_half_width();
  j["rel_half_width"] = std::isfinite(rel) ? nlohmann::json(rel) : nlohmann::json(nullptr);
  j["stopping"] = g.reps ? nlohmann::json{{"rule", "fixed"}, {"reps", *g.reps}}
                         : nlohmann::json{{"rule", "adaptive"},      {"max_noise_pct", g.max_noise * 100},
                                          {"min_samples", g.min_samples}, {"min_time_s", g.min_time},
                                          {"timeout_s", g.timeout},   {"max_samples", g.max_samples}};
  j["rounds"] = g.rounds;  // beside `stopping`, which keeps the keys it always had
  j["measured_s"] = t.measured_s;
  j["wall_s"] = t.wall_s;
  if (t.point_s > 0) {
    j["build_s"] = t.build_s;
    j["validate_s"] = t.validate_s;
    j["point_s"] = t.point_s;
  }
  j["cache"] = t.cold_cache ? "cold" : "hot";
  if (t.cold_cache) j["flush_bytes"] = t.flush_bytes;
  j["samples"] = t.samples;
  if (!t.round_samples.empty()) {
    const auto rounds = round_medians(t.samples, t.round_samples);
    j["round_samples"] = t.round_samples;
    j["round_medians"] = rounds;
    j["round_spread"] = round_spread(rounds);
    j["fresh_buffer_rounds"] = t.fresh_buffer_rounds;
  }
  if (!t.sm_clock_mhz.empty()) j["sm_clock_mhz"] = t.sm_clock_mhz;
  if (!t.power_w.empty()) j["power_w"] = t.power_w;
  if (!t.temperature_c.empty()) j["temperature_c"] = t.temperature_c;
  if (!t.cpu_clock_mhz.empty()) j["cpu_clock_mhz"] = t.cpu_clock_mhz;
  if (!t.cpu_governors.empty()) j["cpu_governors"] = t.cpu_governors;
  if (!t.cpu_clock_why.empty()) j["cpu_clock_why"] = t.cpu_clock_why;
  if (!t.throttled.empty()) {
    j["throttled"] = t.throttled;
    j["throttled_samples"] = std::count(t.throttled.begin(), t.throttled.end(), 1);
    j["throttle_reasons"] = t.throttle_reasons;
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const PointRecord& r) {
  if (!r.measured_json.is_null()) {
    nlohmann::json j = r.measured_json;
    j["point"] = r.point;
    return j;
  }
  nlohmann::json j = {{"point", r.point},          {"op", r.op},
                      {"variant", r.variant},      {"variant_id", r.variant_id},
                      {"kind", to_string(r.kind)},            {"backend", to_string(r.backend)},
                      {"device", r.device},        {"device_name", r.device_name},
                      {"precision", name(r.precision)}, {"sizes", r.sizes},
                      {"params", r.params},        {"seed", r.seed},
                      {"time", r.time},            {"status", to_string(r.status)}};
  if (!r.param_source.is_null()) j["param_source"] = r.param_source;
  if (!r.auto_choice.is_null()) j["auto"] = r.auto_choice;
  if (r.flops) j["flops"] = *r.flops;
  if (r.min_bytes) j["min_bytes"] = *r.min_bytes;
  if (!r.features.empty()) j["features"] = r.features;
  if (r.timing) j["timing"] = to_json(*r.timing);
  if (r.gflops) j["gflops"] = *r.gflops;
  if (r.gbs) j["gbs"] = *r.gbs;
  if (r.raw_bytes) j["raw_bytes"] = *r.raw_bytes;
  if (r.raw_gbs) j["raw_gbs"] = *r.raw_gbs;
  if (r.ns_per_load) j["ns_per_load"] = *r.ns_per_load;
  if (r.validation) j["validation"] = to_json(*r.validation);
  const auto& o = r.observed;
  if (o.ceiling)
    j["ceiling"] = {{"gbs", o.ceiling->gbs},
                    {"gflops", o.ceiling->gflops ? nlohmann::json(*o.ceiling->gflops) : nlohmann::json(nullptr)},
                    {"source", o.ceiling->source}};
  if (o.pct_ceiling) j["pct_ceiling"] = *o.pct_ceiling;
  if (o.pct_bw) j["pct_bw"] = *o.pct_bw;
  if (!o.energy.is_null()) j["energy"] = o.energy;
  if (r.status != PointStatus::ok) j["message"] = r.message;
  if (r.status == PointStatus::error && r.error_stage != ErrorStage::none) j["error_stage"] = to_string(r.error_stage);
  return j;
}

}  // namespace hetbench
