#include "engine/record/vendor_summary.hpp"

#include <map>
#include <set>
#include <tuple>

#include "engine/record/query.hpp"

namespace hetbench {

namespace {

using Bucket = std::tuple<std::string, std::string, std::string, std::string>;  // host, device, op, precision

Bucket bucket_of(const nlohmann::json& r) {
  return {r.value("host", ""), r.value("device", ""), r.value("op", ""), r.value("precision", "")};
}

std::string problem_of(const nlohmann::json& r) {
  return query::sizes_text(r.value("op", ""), r.value("precision", ""), r.value("sizes", nlohmann::json::object()));
}

// The best ok record of each problem within each bucket: bucket -> problem -> best.
std::map<Bucket, std::map<std::string, query::Best>> best_per_problem(const std::vector<const nlohmann::json*>& recs) {
  const query::GroupKey key = query::group_by({"host", "device", "op", "precision", "sizes"});
  std::map<Bucket, std::map<std::string, query::Best>> out;
  for (auto& b : query::best_per_group(recs, query::Selection{}, query::Metric{}, key).groups)
    out[bucket_of(b.record)].emplace(problem_of(b.record), std::move(b));
  return out;
}

}  // namespace

nlohmann::json own_vs_vendor(const std::vector<nlohmann::json>& records) {
  std::vector<const nlohmann::json*> own, lib;
  for (const auto& r : records) (r.value("kind", "kernel") == "library" ? lib : own).push_back(&r);
  const auto own_best = best_per_problem(own), lib_best = best_per_problem(lib);
  nlohmann::json with = nlohmann::json::array(), without = nlohmann::json::array();
  for (const auto& [bucket, problems] : own_best) {
    const auto& [host, device, op, precision] = bucket;
    const query::Best* top = nullptr;
    for (const auto& [problem, b] : problems)
      if (!top || b.value > top->value) top = &b;
    const auto rate = query::headline_rate(top->record);
    nlohmann::json row = {{"host", host},
                          {"device", device},
                          {"device_name", top->record.value("device_name", "")},
                          {"op", op},
                          {"precision", precision},
                          {"unit", rate ? rate->second : "GB/s"},
                          {"best_own",
                           {{"rate", top->value},
                            {"variant_id", top->record.value("variant_id", "")},
                            {"params", query::params_text(top->record.value("params", nlohmann::json::object()))},
                            {"problem", problem_of(top->record)}}}};
    std::vector<std::pair<std::string, double>> ratios;
    std::set<std::string> vendors;
    if (const auto l = lib_best.find(bucket); l != lib_best.end())
      for (const auto& [problem, b] : problems)
        if (const auto v = l->second.find(problem); v != l->second.end() && v->second.value > 0) {
          ratios.emplace_back(problem, b.value / v->second.value);
          vendors.insert(v->second.record.value("variant_id", ""));
        }
    if (ratios.empty()) {
      without.push_back(std::move(row));
      continue;
    }
    const auto s = query::summarize(ratios);
    row.update({{"problems", s.n},
                {"geomean", s.geomean},
                {"min", s.min},
                {"max", s.max},
                {"min_at", s.min_at},
                {"vendor", std::vector<std::string>(vendors.begin(), vendors.end())}});
    with.push_back(std::move(row));
  }
  for (auto& r : without) with.push_back(std::move(r));
  return with;
}

}  // namespace hetbench
