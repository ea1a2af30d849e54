#include "tune/summary.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/record/query.hpp"
#include "util/text_table.hpp"

namespace hetbench::tune {

namespace {

// A rate r measured at the median time scales to the interval's ends as r * median / t.
void rate(const nlohmann::json& rec, const char* key, const TuningResult& r, std::optional<double>& v,
          std::optional<double>& lo, std::optional<double>& hi) {
  if (!rec.contains(key) || !rec[key].is_number()) return;
  v = rec[key].get<double>();
  if (r.ci95_hi_s > 0) lo = *v * r.median_s / r.ci95_hi_s;
  if (r.ci95_lo_s > 0) hi = *v * r.median_s / r.ci95_lo_s;
}

// The problem as run's tables show it (query::sizes_text: a matrix by its input, the axes
// the precision ignores left out); a layout is no part of it: it is shown with the best.
std::string sizes_text(const TuningResult& r) {
  nlohmann::json j = r.sizes;
  if (r.layout && j.is_object()) j.erase("input");
  return query::sizes_text(r.op, r.precision, j);
}

std::string interval_text(const std::optional<double>& v, const std::optional<double>& lo,
                          const std::optional<double>& hi) {
  if (!v || *v <= 0) return "";
  return fmt::format("{:.2f} [{}, {}]", *v, lo ? fmt::format("{:.2f}", *lo) : "?", hi ? fmt::format("{:.2f}", *hi) : "?");
}

}  // namespace

TuningResult summarize(const Space& space, const std::vector<Measured>& measured,
                       const std::vector<nlohmann::json>& recs, std::size_t pruned, const TuneSettings& s,
                       double wall_s, const std::string& experiment) {
  TuningResult r;
  r.space = space.size();
  r.pruned = pruned;
  r.evaluations = measured.size();
  r.strategy = s.strategy;
  r.seed = s.seed;
  r.wall_s = wall_s;
  r.experiment = experiment;
  if (recs.empty()) return r;
  const Pick pick = pick_best(measured, space);
  const nlohmann::json& b = recs[pick.found ? pick.best : 0];
  r.op = b.value("op", "");
  r.device = b.value("device", "");
  r.device_name = b.value("device_name", "");
  r.variant = b.value("variant", "");
  r.variant_id = b.value("variant_id", "");
  r.backend = b.value("backend", "");
  r.precision = b.value("precision", "");
  r.sizes = b.value("sizes", nlohmann::json::object());
  r.features = b.value("features", nlohmann::json::object());
  if (!pick.found) return r;
  r.found = true;
  r.params = b.value("params", ParamValues{});
  r.point = b.value("point", -1);
  r.ties = pick.tied.size() - 1;
  r.median_s = measured[pick.best].median;
  r.ci95_lo_s = measured[pick.best].lo;
  r.ci95_hi_s = measured[pick.best].hi;
  rate(b, "gbs", r, r.gbs, r.gbs_lo, r.gbs_hi);
  rate(b, "gflops", r, r.gflops, r.gflops_lo, r.gflops_hi);
  return r;
}

nlohmann::json to_json(const TuningResult& r) {
  nlohmann::json j = {{"op", r.op},
                      {"device", r.device},
                      {"device_name", r.device_name},
                      {"variant", r.variant},
                      {"variant_id", r.variant_id},
                      {"backend", r.backend},
                      {"precision", r.precision},
                      {"sizes", r.sizes},
                      {"features", r.features},
                      {"found", r.found},
                      {"strategy", r.strategy},
                      {"seed", r.seed},
                      {"evaluations", r.evaluations},
                      {"space", r.space},
                      {"pruned", r.pruned},
                      {"wall_s", r.wall_s},
                      {"experiment", r.experiment}};
  if (!r.found) return j;
  j["params"] = r.params;
  if (r.layout) j["layout"] = to_json(*r.layout);
  j["point"] = r.point;
  j["ties"] = r.ties;
  j["seconds"] = {{"median", r.median_s}, {"ci95_lo", r.ci95_lo_s}, {"ci95_hi", r.ci95_hi_s}};
  auto put = [&](const char* k, const std::optional<double>& v, const std::optional<double>& lo,
                 const std::optional<double>& hi) {
    if (!v) return;
    j[k] = {{"value", *v}, {"lo", lo ? nlohmann::json(*lo) : nlohmann::json()}, {"hi", hi ? nlohmann::json(*hi) : nlohmann::json()}};
  };
  put("gbs", r.gbs, r.gbs_lo, r.gbs_hi);
  put("gflops", r.gflops, r.gflops_lo, r.gflops_hi);
  return j;
}

void print_summary(const std::vector<TuningResult>& results) {
  const auto shows_flops = [](const std::string& op) {
    const Op* o = op_named(op);
    return o && o->rates().shows_flops;
  };
  const std::vector<std::string> header{"device", "prec", "size",   "variant", "space", "pruned", "evals",
                                        "best",   "ties", "GB/s [interval]", "GFLOP/s [interval]", "wall"};
  std::vector<std::vector<std::string>> rows{header};
  for (const auto& r : results)
    rows.push_back({r.device, r.precision, sizes_text(r), r.variant, std::to_string(r.space),
                    std::to_string(r.pruned), std::to_string(r.evaluations),
                    r.found ? (r.params.empty() ? "(no parameters)" : query::params_text(nlohmann::json(r.params))) +
                                  (r.layout ? " @" + describe(*r.layout) : "")
                            : "none passed",
                    r.found ? std::to_string(r.ties) : "", interval_text(r.gbs, r.gbs_lo, r.gbs_hi),
                    shows_flops(r.op) ? interval_text(r.gflops, r.gflops_lo, r.gflops_hi) : "",
                    fmt::format("{:.1f}s", r.wall_s)});
  fmt::print("{}", aligned_table(rows));
}

}  // namespace hetbench::tune
