#include "hetbench/record.hpp"

namespace hetbench {

std::string_view to_string(PointStatus s) {
  switch (s) {
    case PointStatus::ok: return "ok";
    case PointStatus::failed: return "failed";
    case PointStatus::error: return "error";
    case PointStatus::skipped: return "skipped";
  }
  return "?";
}

std::string_view to_string(ErrorStage s) {
  switch (s) {
    case ErrorStage::none: return "none";
    case ErrorStage::build: return "build";
    case ErrorStage::run: return "run";
  }
  return "?";
}

nlohmann::json to_json(const PointRecord& r) {
  nlohmann::json j = {{"point", r.point},          {"op", r.op},
                      {"variant", r.variant},      {"variant_id", r.variant_id},
                      {"kind", to_string(r.kind)},            {"backend", to_string(r.backend)},
                      {"device", r.device},        {"device_name", r.device_name},
                      {"precision", name(r.precision)}, {"sizes", r.sizes},
                      {"params", r.params},        {"seed", r.seed},
                      {"time", r.time},            {"status", to_string(r.status)}};
  if (r.flops) j["flops"] = *r.flops;
  if (r.min_bytes) j["min_bytes"] = *r.min_bytes;
  if (!r.features.empty()) j["features"] = r.features;
  if (const auto& t = r.timing)
    j["timing"] = {{"timed", t->include_transfers ? "kernel+transfers" : "kernel"},
                   {"timer", t->timer},
                   {"warmup", t->warmup},
                   {"reps", t->seconds.n},
                   {"rate_from", "median"},
                   {"seconds", to_json(t->seconds)}};
  if (r.gflops) j["gflops"] = *r.gflops;
  if (r.gbs) j["gbs"] = *r.gbs;
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
