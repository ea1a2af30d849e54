#include "characterize/device_measure.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "engine/record/query.hpp"
#include "engine/record/results.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

namespace {

const std::string& sizes_for(const ReportMeasurement& m, const Device& d) {
  return d.info().type == "cpu" ? m.sizes_cpu : m.sizes_gpu;
}

std::string pow2_label(const nlohmann::json& sizes) {
  std::string s;
  for (const auto& [k, v] : sizes.items()) {
    std::string val = v.dump();
    if (v.is_number_integer()) {
      const auto x = v.get<long long>();
      if (x >= 1024 && (x & (x - 1)) == 0) val = fmt::format("2^{}", __builtin_ctzll(static_cast<unsigned long long>(x)));
    }
    s += fmt::format("{}{}={}", s.empty() ? "" : ",", k, val);
  }
  return s;
}

}  // namespace

// The table: copy is here today; the others are the ops of issue 17's items 1-4, built in
// parallel, measured once they are in the build. Sizes are --size tokens the op parses;
// an op that rejects them is reported with its message.
const std::vector<ReportMeasurement>& report_measurements() {
  static const std::vector<ReportMeasurement> m{
      {"copy_gbs", "copy bandwidth (best variant)", "copy", "2^26", "2^24", "gbs", "GB/s", false, false},
      {"copy_strided_gbs", "strided copy bandwidth", "copy_strided", "2^24@stride=1,2,4,8,32", "2^22@stride=1,2,8",
       "gbs", "GB/s", false, true},
      {"pchase_ns", "load latency (pointer chase)", "pchase", "2^10:2^28:*8", "2^10:2^26:*8", "ns_per_load", "ns", true,
       true},
      {"transfer_h2d_gbs", "host link h2d, pinned", "transfer", "2^16:2^28:*16@h2d@pinned", "2^16:2^24:*16@h2d@pinned",
       "gbs", "GB/s", false, true},
      {"transfer_d2h_gbs", "host link d2h, pinned", "transfer", "2^16:2^28:*16@d2h@pinned", "2^16:2^24:*16@d2h@pinned",
       "gbs", "GB/s", false, true},
      {"bank_conflict_gbs", "shared-memory bandwidth (bank conflicts)", "bank_conflict", "2^16@stride=1,2,32",
       "2^10@stride=1,2,32", "features.derived.smem_gbs", "GB/s", false, true},
  };
  return m;
}

std::string not_measurable(const ReportMeasurement& m, const Device& d) {
  const Op* op = op_named(m.op);
  if (!op) return fmt::format("op {} not in this build", m.op);
  bool any = false;
  for (const auto& v : variants_for(m.op)) any |= v->backend == d.kernel_language();
  if (!any) return fmt::format("op {} has no {} variant", m.op, to_string(d.kernel_language()));
  try {
    op->parse_sizes(sizes_for(m, d));
  } catch (const Error& e) {
    return fmt::format("op {} rejects sizes '{}': {}", m.op, sizes_for(m, d), e.what());
  }
  return "";
}

nlohmann::json planned_measurements(const Device& d) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : report_measurements()) {
    auto why = not_measurable(m, d);
    out.push_back({{"name", m.name}, {"label", m.label}, {"op", m.op}, {"unit", m.unit},
                   {"status", "not measured"}, {"reason", why.empty() ? "run with --measure" : why}});
  }
  return out;
}

nlohmann::json extract_measurement(const ReportMeasurement& m, const std::string& dev,
                                   const std::vector<nlohmann::json>& records) {
  // Per size (a curve) or the best overall; query.hpp's rule, the metric found as the
  // entries name it (top level, one level down, or a dotted path).
  const query::Metric metric{m.metric, m.lower_is_better};
  const query::GroupKey key =
      m.per_size ? query::GroupKey([](const nlohmann::json& r) { return pow2_label(r.value("sizes", nlohmann::json::object())); })
                 : query::one_group();
  const auto best = query::best_per_group(records, query::Selection{{{"device", dev}, {"op", m.op}}}, metric, key);
  nlohmann::json out = {{"name", m.name}, {"label", m.label}, {"op", m.op}, {"unit", m.unit}};
  if (best.groups.empty()) {
    out["status"] = "not measured";
    out["reason"] = best.why_empty(metric);
    return out;
  }
  out["status"] = "measured";
  out["values"] = nlohmann::json::array();
  for (const auto& g : best.groups)
    out["values"].push_back({{"at", m.per_size ? g.group : pow2_label(g.record.value("sizes", nlohmann::json::object()))},
                             {"value", g.value},
                             {"variant_id", g.record.value("variant_id", "")},
                             {"precision", g.record.value("precision", "")},
                             {"params", g.record.value("params", nlohmann::json::object())}});
  return out;
}

DeviceMeasurement plan_device_measurement(const std::vector<std::shared_ptr<Device>>& devices, const MeasureOptions& o) {
  DeviceMeasurement out;
  Experiment& e = out.experiment;
  e.name = "device-report";
  e.out_root = o.out;
  e.format = "none";  // the report prints its own view
  e.command_line = o.command_line;
  e.seed = o.seed;
  e.spec = {{"seed", e.seed}, {"purpose", "hetbench devices --report --measure"}};
  out.planned.resize(devices.size());
  for (std::size_t k = 0; k < devices.size(); ++k) {
    const auto& d = *devices[k];
    for (const auto& m : report_measurements()) {
      if (!not_measurable(m, d).empty()) continue;
      RunSpec r;
      r.op = m.op;
      r.variants.clear();
      for (const auto& v : variants_for(m.op))
        if (v->backend == d.kernel_language()) r.variants.push_back(v->id());
      r.devices = d.id();
      const auto precs = find_op(m.op).precisions();
      r.precisions = {std::find(precs.begin(), precs.end(), Precision::S) != precs.end() ? Precision::S : precs.front()};
      r.sizes = {sizes_for(m, d)};
      r.reps = o.reps;
      r.warmup = o.warmup;
      e.runs.push_back(r);
      out.planned[k].push_back(&m);
    }
  }
  return out;
}

std::vector<nlohmann::json> measured_figures(const std::vector<std::shared_ptr<Device>>& devices,
                                             const DeviceMeasurement& plan, const std::filesystem::path& dir) {
  const auto recs = dir.empty() ? std::vector<nlohmann::json>{} : read_results(dir);
  std::vector<nlohmann::json> out;
  for (std::size_t k = 0; k < devices.size(); ++k) {
    nlohmann::json list = planned_measurements(*devices[k]);
    for (auto& item : list) {
      for (const auto* m : plan.planned[k])
        if (m->name == item["name"]) {
          item = extract_measurement(*m, devices[k]->id(), recs);
          item["experiment"] = std::filesystem::absolute(dir).string();
        }
    }
    out.push_back(list);
  }
  return out;
}

}  // namespace hetbench
