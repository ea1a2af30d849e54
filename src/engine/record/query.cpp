#include "engine/record/query.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/op.hpp"

namespace hetbench::query {

const nlohmann::json* field(const nlohmann::json& r, const std::string& path) {
  const nlohmann::json* at = &r;
  std::size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    const auto key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
}

namespace {

bool value_matches(const nlohmann::json& want, const nlohmann::json& have) {
  if (want.is_string() && want.get<std::string>() == "*") return true;
  if (want.is_object()) {  // a range: {"at_least": 1}, {"at_most": 0.02}, or both
    if (!have.is_number()) return false;
    const double x = have.get<double>();
    return (!want.contains("at_least") || x >= want["at_least"].get<double>()) &&
           (!want.contains("at_most") || x <= want["at_most"].get<double>());
  }
  if (want.is_string()) return have.is_string() && have.get<std::string>() == want.get<std::string>();
  if (want.is_number() && have.is_number()) return want.get<double>() == have.get<double>();
  return want == have;
}

void check_value(const nlohmann::json& v, const std::string& where, const std::string& key) {
  auto scalar = [](const nlohmann::json& x) { return x.is_string() || x.is_number() || x.is_boolean(); };
  if (scalar(v)) return;
  if (v.is_object() && !v.empty()) {
    for (const auto& [bound, x] : v.items())
      if ((bound != "at_least" && bound != "at_most") || !x.is_number())
        throw Error(fmt::format("{}: '{}': a range is {{\"at_least\": number, \"at_most\": number}} (either or both), "
                                "not {}",
                                where, key, v.dump()));
    return;
  }
  if (v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), scalar)) return;
  throw Error(fmt::format("{}: '{}': expected a string, number, bool, a range {{\"at_least\": x, \"at_most\": y}} "
                          "or a non-empty list of values, not {}",
                          where, key, v.dump()));
}

}  // namespace

namespace {

bool all_fields_match(const nlohmann::json& match, const nlohmann::json& r) {
  for (const auto& [key, want] : match.items()) {
    const nlohmann::json* have = field(r, key);
    if (!have) return false;
    bool any = false;
    if (want.is_array()) {
      for (const auto& w : want) any = any || value_matches(w, *have);
    } else {
      any = value_matches(want, *have);
    }
    if (!any) return false;
  }
  return true;
}

}  // namespace

bool Selection::matches(const nlohmann::json& r) const {
  if (!match.is_array()) return all_fields_match(match, r);
  return std::any_of(match.begin(), match.end(), [&](const nlohmann::json& m) { return all_fields_match(m, r); });
}

std::vector<nlohmann::json> Selection::alternatives() const {
  if (match.is_array()) return {match.begin(), match.end()};
  return {match};
}

Selection Selection::from_json(const nlohmann::json& j, const std::string& where) {
  auto check_object = [&](const nlohmann::json& o, const std::string& at) {
    if (!o.is_object()) throw Error(fmt::format("{}: expected an object of field: value, not {}", at, o.dump()));
    for (const auto& [k, v] : o.items()) check_value(v, at, k);
  };
  if (j.is_array()) {
    if (j.empty()) throw Error(fmt::format("{}: an empty list selects nothing", where));
    for (std::size_t i = 0; i < j.size(); ++i) check_object(j[i], fmt::format("{}[{}]", where, i));
  } else {
    check_object(j, where);
  }
  return Selection{j};
}

Selection Selection::parse(const std::string& text) {
  Selection s;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const auto comma = text.find(',', start);
    const auto item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw Error(fmt::format("selection '{}': '{}' is not FIELD=VALUE[|VALUE...]", text, item));
    nlohmann::json values = nlohmann::json::array();
    std::size_t b = eq + 1;
    while (true) {
      const auto bar = item.find('|', b);
      values.push_back(item.substr(b, bar == std::string::npos ? std::string::npos : bar - b));
      if (bar == std::string::npos) break;
      b = bar + 1;
    }
    s.match[item.substr(0, eq)] = values.size() == 1 ? values[0] : values;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return s;
}

namespace {

// A number at the record's top level or inside one of its objects (an op may keep its
// figures in an object of its own, as the device report's entries expect).
const nlohmann::json* numeric(const nlohmann::json& r, const std::string& name) {
  if (const auto* f = field(r, name); f && f->is_number()) return f;
  if (name.find('.') != std::string::npos) return nullptr;
  for (const auto& [k, v] : r.items())
    if (v.is_object() && v.contains(name) && v[name].is_number()) return &v[name];
  return nullptr;
}

bool positive(const nlohmann::json* f) { return f && f->get<double>() > 0; }

}  // namespace

std::optional<std::pair<double, const char*>> headline_rate(const nlohmann::json& r) {
  const Op* op = op_named(r.value("op", ""));
  const auto* gflops = field(r, "gflops");
  const auto* gbs = field(r, "gbs");
  const bool have_flops = gflops && gflops->is_number() && positive(gflops);
  if (op && op->rates().by_flops && have_flops) return std::make_pair(gflops->get<double>(), "GFLOP/s");
  if (gbs && gbs->is_number() && positive(gbs)) return std::make_pair(gbs->get<double>(), "GB/s");
  if (have_flops) return std::make_pair(gflops->get<double>(), "GFLOP/s");
  return std::nullopt;
}

std::optional<double> Metric::of(const nlohmann::json& r) const {
  if (name == "rate") {
    const auto h = headline_rate(r);
    return h ? std::optional<double>(h->first) : std::nullopt;
  }
  if (name == "time") {
    const auto* t = field(r, "timing.seconds.median");
    return t && t->is_number() ? std::optional<double>(t->get<double>()) : std::nullopt;
  }
  const auto* f = numeric(r, name);
  return f ? std::optional<double>(f->get<double>()) : std::nullopt;
}

Metric Metric::parse(const std::string& text) {
  Metric m;
  auto colon = text.rfind(':');
  m.name = colon == std::string::npos ? text : text.substr(0, colon);
  if (m.name.empty()) throw Error(fmt::format("metric '{}': no name", text));
  m.lower_is_better = m.name.rfind("time", 0) == 0 || m.name.rfind("timing", 0) == 0;
  if (colon != std::string::npos) {
    const auto dir = text.substr(colon + 1);
    if (dir == "lower") m.lower_is_better = true;
    else if (dir == "higher") m.lower_is_better = false;
    else throw Error(fmt::format("metric '{}': ':{}' is not ':lower' or ':higher'", text, dir));
  }
  return m;
}

const std::vector<std::string>& default_group_fields() {
  static const std::vector<std::string> f{"experiment", "device", "op", "precision", "sizes"};
  return f;
}

GroupKey group_by(const std::vector<std::string>& fields) {
  return [fields](const nlohmann::json& r) {
    std::string key;
    for (const auto& f : fields) {
      const auto* v = field(r, f);
      key += fmt::format("{}{}", key.empty() ? "" : " ", !v ? "-" : v->is_string() ? v->get<std::string>() : v->dump());
    }
    return key;
  };
}

GroupKey one_group() {
  return [](const nlohmann::json&) { return std::string(); };
}

std::string BestSet::why_empty(const Metric& m) const {
  if (!groups.empty()) return "";
  if (seen == 0) return "no point was recorded";
  if (failed == seen) return fmt::format("none of its {} points passed", seen);
  if (without_metric > 0) return fmt::format("its records carry no '{}'", m.name);
  return fmt::format("none of its {} points was measured", seen);
}

BestSet best_per_group(const std::vector<const nlohmann::json*>& records, const Selection& sel, const Metric& m,
                       const GroupKey& key) {
  BestSet out;
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& r = *records[i];
    if (!sel.matches(r)) continue;
    ++out.seen;
    const auto status = r.value("status", "");
    if (status != "ok") {
      out.failed += status != "skipped";
      continue;
    }
    const auto v = m.of(r);
    if (!v) {
      ++out.without_metric;
      continue;
    }
    const auto k = key(r);
    auto it = at.find(k);
    if (it == at.end()) {
      at[k] = out.groups.size();
      out.groups.push_back({k, r, *v, i});
    } else if (m.better(*v, out.groups[it->second].value)) {
      out.groups[it->second] = {k, r, *v, i};
    }
  }
  return out;
}

BestSet best_per_group(const std::vector<nlohmann::json>& records, const Selection& sel, const Metric& m,
                       const GroupKey& key) {
  std::vector<const nlohmann::json*> held;
  held.reserve(records.size());
  for (const auto& r : records) held.push_back(&r);
  return best_per_group(held, sel, m, key);
}

std::vector<nlohmann::json> best_or_failure_per_group(const std::vector<nlohmann::json>& records, const Metric& m,
                                                      const GroupKey& key) {
  // rank: a failure 3, an ok point 2 (the best of them), a skipped point 1, nothing 0.
  struct Slot {
    nlohmann::json record;
    int rank = 0;
    std::optional<double> value;
  };
  std::map<std::string, std::size_t> at;
  std::vector<Slot> slots;
  for (const auto& r : records) {
    const auto status = r.value("status", "");
    Slot s{r, status == "ok" ? 2 : status == "skipped" ? 1 : 3, status == "ok" ? m.of(r) : std::nullopt};
    const auto k = key(r);
    auto it = at.find(k);
    if (it == at.end()) {
      at[k] = slots.size();
      slots.push_back(std::move(s));
      continue;
    }
    auto& b = slots[it->second];
    const bool faster = s.rank == 2 && b.rank == 2 && s.value && (!b.value || m.better(*s.value, *b.value));
    if (s.rank > b.rank || faster) b = std::move(s);
  }
  std::vector<nlohmann::json> out;
  for (auto& s : slots) out.push_back(std::move(s.record));
  return out;
}

Ratios ratios(const std::vector<nlohmann::json>& records, const Selection& own, const Selection& baseline,
              const Metric& m, const GroupKey& key) {
  const auto mine = best_per_group(records, own, m, key);
  const auto base = best_per_group(records, baseline, m, key);
  std::map<std::string, const Best*> base_of;
  for (const auto& b : base.groups) base_of[b.group] = &b;
  Ratios out;
  for (const auto& o : mine.groups) {
    auto it = base_of.find(o.group);
    if (it == base_of.end()) {
      out.unpaired.push_back(fmt::format("{}: no baseline", o.group));
      continue;
    }
    const double num = m.lower_is_better ? it->second->value : o.value;
    const double den = m.lower_is_better ? o.value : it->second->value;
    if (!(den > 0) || !(num > 0)) {
      out.unpaired.push_back(fmt::format("{}: a figure is not positive", o.group));
      continue;
    }
    out.pairs.push_back({o.group, o, *it->second, num / den});
    base_of.erase(it);
  }
  for (const auto& b : base.groups)
    if (base_of.count(b.group)) out.unpaired.push_back(fmt::format("{}: no own record", b.group));
  return out;
}

Summary summarize(const std::vector<std::pair<std::string, double>>& values) {
  Summary s;
  double log_sum = 0;
  for (const auto& [group, v] : values) {
    if (!(v > 0)) throw Error(fmt::format("summary: {} at '{}' is not positive", v, group));
    if (s.n == 0 || v < s.min) s.min = v, s.min_at = group;
    if (s.n == 0 || v > s.max) s.max = v, s.max_at = group;
    log_sum += std::log(v);
    ++s.n;
  }
  if (s.n) s.geomean = std::exp(log_sum / static_cast<double>(s.n));
  return s;
}

Summary summarize(const Ratios& r) {
  std::vector<std::pair<std::string, double>> v;
  for (const auto& p : r.pairs) v.emplace_back(p.group, p.ratio);
  return summarize(v);
}

Summary summarize(const BestSet& b) {
  std::vector<std::pair<std::string, double>> v;
  for (const auto& g : b.groups) v.emplace_back(g.group, g.value);
  return summarize(v);
}

Target Target::from_json(const nlohmann::json& j, const std::string& where) {
  Target t;
  if (j.contains("stat")) {
    if (!j["stat"].is_string()) throw Error(fmt::format("{}: 'stat': expected geomean, min or max", where));
    t.stat = j["stat"].get<std::string>();
    if (t.stat != "geomean" && t.stat != "min" && t.stat != "max")
      throw Error(fmt::format("{}: 'stat': '{}' is not geomean, min or max", where, t.stat));
  }
  for (const char* k : {"at_least", "at_most"})
    if (j.contains(k)) {
      if (!j[k].is_number()) throw Error(fmt::format("{}: '{}': expected a number, not {}", where, k, j[k].dump()));
      (std::string(k) == "at_least" ? t.at_least : t.at_most) = j[k].get<double>();
    }
  if (j.contains("report")) {
    if (!j["report"].is_boolean()) throw Error(fmt::format("{}: 'report': expected true or false", where));
    t.report = j["report"].get<bool>();
  }
  if (t.report && (t.at_least || t.at_most))
    throw Error(fmt::format("{}: 'report': a reported figure has no bound (drop 'report' or 'at_least'/'at_most')",
                            where));
  if (!t.report && !t.at_least && !t.at_most)
    throw Error(fmt::format("{}: give 'at_least' or 'at_most' (or both), or \"report\": true for a figure "
                            "without a target", where));
  return t;
}

std::string Target::text() const {
  if (report) return stat + " (reported)";
  std::string s;
  if (at_least) s += fmt::format("{} >= {}", stat, *at_least);
  if (at_most) s += fmt::format("{}{} <= {}", s.empty() ? "" : " and ", stat, *at_most);
  return s;
}

Verdict check(const Target& t, const Summary& s) {
  Verdict v;
  v.met = t.report;  // a reported figure is printed, never a miss
  if (s.n == 0) {
    v.text = t.report ? "figure: nothing was measured" : fmt::format("missed: {}, but nothing was measured", t.text());
    return v;
  }
  v.figure = t.stat == "min" ? s.min : t.stat == "max" ? s.max : s.geomean;
  if (!t.report) v.met = (!t.at_least || v.figure >= *t.at_least) && (!t.at_most || v.figure <= *t.at_most);
  const std::string head = t.report ? fmt::format("figure: {} {:.4g}", t.stat, v.figure)
                                    : fmt::format("{}: {} {:.4g} (target {})", v.met ? "met" : "missed", t.stat,
                                                  v.figure, t.text());
  v.text = fmt::format("{} over {} group{}; min {:.4g} at {}, max {:.4g} at {}", head, s.n, s.n == 1 ? "" : "s", s.min,
                       s.min_at.empty() ? "-" : s.min_at, s.max, s.max_at.empty() ? "-" : s.max_at);
  return v;
}

}  // namespace hetbench::query

namespace hetbench::query {

namespace {

std::vector<std::string> string_list(const nlohmann::json& v, const std::string& where, const char* key) {
  std::vector<std::string> out;
  if (v.is_array() && !v.empty())
    for (const auto& x : v) {
      if (!x.is_string()) break;
      out.push_back(x.get<std::string>());
    }
  if (out.empty() || out.size() != v.size())
    throw Error(fmt::format("{}: '{}': expected a non-empty list of field names, not {}", where, key, v.dump()));
  return out;
}

}  // namespace

std::string params_text(const nlohmann::json& params) {
  std::string s;
  if (params.is_object())
    for (const auto& [k, v] : params.items())
      s += fmt::format("{}{}={}", s.empty() ? "" : ",", k, v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

std::string sizes_text(const std::string& op, const std::string& precision, const nlohmann::json& j) {
  if (j.contains("input") && j["input"].is_string())
    return j["input"].get<std::string>() + (j.contains("nnz") ? fmt::format(" nnz={}", j["nnz"].dump()) : "");
  return params_text(meaningful_sizes(op, precision, j));
}

std::string point_label(const nlohmann::json& r) {
  const auto params = params_text(r.value("params", nlohmann::json::object()));
  return r.value("variant_id", r.value("variant", "?")) + (params.empty() ? "" : "[" + params + "]");
}

Check Check::from_json(const nlohmann::json& j, const std::string& where) {
  static const std::set<std::string> keys{"name",   "description", "select",   "baseline", "by",        "metric",
                                          "stat",   "at_least",    "at_most",  "report",   "per_device"};
  if (!j.is_object()) throw Error(fmt::format("{}: a target must be a JSON object", where));
  Check c;
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
    throw Error(fmt::format("{}: 'name': missing or not a string", where));
  c.name = j["name"];
  const std::string at = fmt::format("{} ('{}')", where, c.name);
  for (const auto& [k, v] : j.items())
    if (!keys.count(k))
      throw Error(fmt::format("{}: '{}': unknown key (a target has name, description, select, baseline, by, metric, "
                              "stat, at_least, at_most, report, per_device)",
                              at, k));
  if (j.contains("description")) {
    if (!j["description"].is_string()) throw Error(fmt::format("{}: 'description': expected a string", at));
    c.description = j["description"];
  }
  if (!j.contains("select")) throw Error(fmt::format("{}: 'select': missing (which records the target is over)", at));
  c.select = Selection::from_json(j["select"], at + ": select");
  if (j.contains("baseline")) c.baseline = Selection::from_json(j["baseline"], at + ": baseline");
  if (j.contains("by")) c.by = string_list(j["by"], at, "by");
  if (j.contains("metric")) {
    if (!j["metric"].is_string()) throw Error(fmt::format("{}: 'metric': expected a string", at));
    c.metric = Metric::parse(j["metric"]);
  }
  if (j.contains("per_device")) {
    if (!j["per_device"].is_string() || j["per_device"].get<std::string>().empty())
      throw Error(fmt::format("{}: 'per_device': expected the dotted path of a device fact, e.g. "
                              "\"extra.pcie_practical_gbs\"",
                              at));
    if (c.baseline) throw Error(fmt::format("{}: give either 'baseline' or 'per_device', not both", at));
    c.per_device = j["per_device"];
  }
  c.target = Target::from_json(j, at);
  return c;
}

std::vector<Check> checks_of(const nlohmann::json& spec, const std::string& path) {
  std::vector<Check> out;
  if (!spec.is_object() || !spec.contains("targets")) return out;
  const auto& t = spec["targets"];
  if (!t.is_array() || t.empty()) throw Error(fmt::format("{}: 'targets': expected a non-empty array", path));
  for (std::size_t i = 0; i < t.size(); ++i) out.push_back(Check::from_json(t[i], fmt::format("{}: targets[{}]", path, i)));
  return out;
}

CheckResult evaluate(const Check& c, const std::vector<nlohmann::json>& records) {
  CheckResult out;
  const auto key = group_by(c.by);
  if (c.baseline) {
    const auto r = ratios(records, c.select, *c.baseline, c.metric, key);
    for (const auto& p : r.pairs)
      out.rows.push_back({p.group, point_label(p.own.record), p.own.value, point_label(p.base.record), p.base.value, p.ratio});
    out.unpaired = r.unpaired;
    out.summary = summarize(r);
  } else if (!c.per_device.empty()) {
    // Each group's best over the device's own fact: a ratio with a yardstick no record holds.
    const auto b = best_per_group(records, c.select, c.metric, key);
    std::vector<std::pair<std::string, double>> values;
    for (const auto& g : b.groups) {
      const auto* f = field(g.record, "device_facts." + c.per_device);
      if (!f || !f->is_number() || f->get<double>() <= 0) {
        out.unpaired.push_back(fmt::format("{}: the device {} has no fact {}", g.group,
                                           g.record.value("device", "?"), c.per_device));
        continue;
      }
      const double fact = f->get<double>();
      out.rows.push_back({g.group, point_label(g.record), g.value, "device " + c.per_device, fact, g.value / fact});
      values.emplace_back(g.group, g.value / fact);
    }
    if (b.groups.empty()) out.unpaired.push_back(b.why_empty(c.metric));
    out.summary = summarize(values);
  } else {
    const auto b = best_per_group(records, c.select, c.metric, key);
    for (const auto& g : b.groups) out.rows.push_back({g.group, point_label(g.record), g.value, "", 0, 0});
    if (b.groups.empty()) out.unpaired.push_back(b.why_empty(c.metric));
    out.summary = summarize(b);
  }
  if (out.summary.n == 0 && c.baseline) {  // say which side found nothing, not each group it missed
    out.unpaired.clear();
    for (const auto* sel : {&c.select, &*c.baseline}) {
      const auto b = best_per_group(records, *sel, c.metric, key);
      if (b.groups.empty())
        out.unpaired.push_back(fmt::format("{} {}: {}", sel == &c.select ? "select" : "baseline", sel->match.dump(),
                                           b.seen ? b.why_empty(c.metric) : "no record matches"));
    }
  } else if (out.summary.n == 0 && out.unpaired.size() == 1 && out.unpaired[0] == "no point was recorded") {
    out.unpaired[0] = fmt::format("select {}: no record matches", c.select.match.dump());
  }
  out.verdict = check(c.target, out.summary);
  return out;
}

nlohmann::json CheckResult::to_json(const Check& c) const {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json g = {{"group", r.group}, {"own", r.own}, {"value", r.value}};
    if (c.baseline || !c.per_device.empty())
      g.update({{"baseline", r.base}, {"baseline_value", r.base_value}, {"ratio", r.ratio}});
    groups.push_back(g);
  }
  return {{"name", c.name},
          {"target", c.target.text()},
          {"metric", c.metric.name},
          {"met", verdict.met},
          {"report", c.target.report},
          {"figure", summary.n ? nlohmann::json(verdict.figure) : nlohmann::json(nullptr)},
          {"groups", groups},
          {"unpaired", unpaired},
          {"summary", {{"n", summary.n}, {"geomean", summary.geomean}, {"min", summary.min}, {"max", summary.max}}},
          {"verdict", verdict.text}};
}

}  // namespace hetbench::query
