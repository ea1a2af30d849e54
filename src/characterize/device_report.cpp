#include "characterize/device_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "characterize/ceilings.hpp"
#include "characterize/device_measure.hpp"
#include "engine/record/provenance.hpp"
#include "engine/record/query.hpp"

namespace hetbench {

namespace {

const char* const kSectionOrder[] = {"device", "compute", "clocks", "memory",   "isa",  "link",
                                     "power",  "health",  "modes",  "software", "peaks"};

std::string bytes_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.4g} {}", b, units[u]);
}

std::string value_text(const nlohmann::json& f) {
  const auto& v = f["value"];
  const std::string unit = f.value("unit", "");
  if (v.is_null()) return "not available (" + f.value("note", "") + ")";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    if (v.size() > 8) return fmt::format("{} entries (see --json)", v.size());
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : x.is_string() ? ", " : " x ") + (x.is_string() ? x.get<std::string>() : x.dump());
    return s;
  }
  if (v.is_object()) {  // a span of values ({min, max, count}), or named parts
    if (v.contains("min") && v.contains("max") && v.contains("count"))
      return fmt::format("{}-{} {} ({} values)", v["min"].dump(), v["max"].dump(), unit, v["count"].dump());
    std::string s;
    for (auto it = v.begin(); it != v.end(); ++it)
      s += fmt::format("{}{} {}", s.empty() ? "" : ", ", it.key(),
                       it->is_boolean() ? (it->get<bool>() ? "yes" : "no") : it->dump());
    return s;
  }
  if (unit == "bytes") return bytes_text(v.get<double>());
  std::string num = v.is_number_float() ? fmt::format("{:.1f}", v.get<double>()) : v.dump();
  return unit.empty() ? num : num + " " + unit;
}

// The note of a fact that has a value: only a derivation worth reading, not its source.
std::string note_text(const nlohmann::json& f) {
  const std::string n = f.value("note", "");
  if (f["value"].is_null() || n.empty() || n == "CUDA runtime" || n == "NVML") return "";
  return "  (" + n + ")";
}

std::string ceiling_text(const nlohmann::json& c, const char* unit) {
  if (!c.is_object()) return "not measured";
  const std::string params = query::params_text(c.value("params", nlohmann::json::object()));
  return fmt::format("{:.1f} {}  ({}{}{}, {})", c.value(unit == std::string("GB/s") ? "gbs" : "gflops", 0.0), unit,
                     c.value("variant_id", ""), params.empty() ? "" : " ", params, c.value("precision", ""));
}

}  // namespace

nlohmann::json facts_json(const DeviceFacts& facts) {
  std::vector<std::string> order(std::begin(kSectionOrder), std::end(kSectionOrder));
  for (const auto& f : facts)
    if (std::find(order.begin(), order.end(), f.section) == order.end()) order.push_back(f.section);
  nlohmann::json sections = nlohmann::json::array(), values = nlohmann::json::object();
  for (const auto& s : order) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& f : facts)
      if (f.section == s) {
        list.push_back({{"key", f.key}, {"label", f.label}, {"value", f.value}, {"unit", f.unit}, {"note", f.note}});
        values[s + "." + f.key] = f.value;
      }
    if (!list.empty()) sections.push_back({{"name", s}, {"facts", list}});
  }
  return {{"sections", sections}, {"values", values}};
}

namespace {

// The report; `recorded`: as experiment.json keeps it (devices[].report), without the
// lookup table of values or the measurement list, which belong to `devices --report`.
nlohmann::json report_of(const Device& d, bool recorded) {
  const auto& i = d.info();
  auto facts = facts_json(device_facts(d));
  nlohmann::json r = {{"format", "hetbench-device-report-1"},
                      {"id", i.id},
                      {"backend", to_string(i.backend)},
                      {"name", i.name},
                      {"sections", facts["sections"]}};
  if (auto c = load_ceilings(i)) {
    r["ceilings"] = to_json(*c);
    r["ceilings"]["file"] = c->file.string();
  } else {
    r["ceilings"] = nullptr;
    r["ceilings_note"] = fmt::format("none stored for this device and driver: run `hetbench ceilings {}`", i.id);
  }
  if (recorded) return r;
  r["values"] = facts["values"];
  r["measurements"] = planned_measurements(d);
  return r;
}

}  // namespace

nlohmann::json device_report_json(const Device& d) { return report_of(d, false); }

std::string device_report_text(const nlohmann::json& r) {
  // Rows of (label, value); a row with an empty value is a section heading.
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& s : r["sections"]) {
    rows.push_back({s["name"].get<std::string>(), ""});
    for (const auto& f : s["facts"]) rows.push_back({f["label"].get<std::string>(), value_text(f) + note_text(f)});
  }
  const auto& c = r["ceilings"];
  if (c.is_object()) {
    rows.push_back({fmt::format("measured ceilings ({}, experiment {})", c.value("date", ""), c.value("experiment", "")), ""});
    rows.push_back({"copy bandwidth", ceiling_text(c["copy_gbs"], "GB/s")});
    rows.push_back({"FMA peak FP32", ceiling_text(c["gflops"]["S"], "GFLOP/s")});
    rows.push_back({"FMA peak FP64", ceiling_text(c["gflops"]["D"], "GFLOP/s")});
  } else {
    rows.push_back({"measured ceilings", ""});
    rows.push_back({"copy bandwidth, FMA peak", "not measured: " + r.value("ceilings_note", "")});
  }
  rows.push_back({"measurements", ""});
  for (const auto& m : r["measurements"]) {
    const std::string label = m.value("label", "");
    if (m.value("status", "") != "measured") {
      rows.push_back({label, "not measured: " + m.value("reason", "")});
      continue;
    }
    for (const auto& v : m["values"]) {
      const std::string at = v.value("at", "");
      rows.push_back({at.empty() ? label : label + " at " + at,
                      fmt::format("{:.4g} {}  ({}, {})", v.value("value", 0.0), m.value("unit", ""),
                                  v.value("variant_id", ""), v.value("precision", ""))});
    }
  }
  std::size_t w = 0;
  for (const auto& [label, value] : rows)
    if (!value.empty()) w = std::max(w, label.size());
  std::string out = fmt::format("{}  {}\n", r.value("id", ""), r.value("name", ""));
  for (const auto& [label, value] : rows)
    out += value.empty() ? fmt::format("  {}\n", label) : fmt::format("    {:<{}}  {}\n", label, w, value);
  return out;
}

// experiment.json's devices[].report (engine/record/provenance) asks for this.
const bool registered_report_source = [] {
  set_device_report_source([](const Device& d) { return report_of(d, true); });
  return true;
}();

}  // namespace hetbench
