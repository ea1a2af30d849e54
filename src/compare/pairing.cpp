#include "compare/pairing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "engine/record/query.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

namespace {

const std::set<std::string> kAttrs{"experiment", "device", "variant", "precision", "commit"};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// A point's value of the attribute; commit is the experiment's.
std::string attr_value(const nlohmann::json& rec, const RecordedExperiment& e, const std::string& attr) {
  if (attr == "commit") return e.experiment.value("git_commit", "unknown");
  return rec.value(attr, "");
}

bool matches(const std::string& value, const std::string& wanted, const nlohmann::json& rec, const std::string& attr) {
  if (attr == "commit") return value.rfind(wanted, 0) == 0;
  if (attr == "variant") return value == wanted || rec.value("variant_id", "") == wanted;
  if (attr == "device") return value == wanted || rec.value("device_name", "") == wanted;
  return value == wanted;
}

std::string describe(const CompareSide& s) {
  if (s.points.empty()) return "no points";
  std::set<std::string> ops, devices, variants;
  for (const auto* p : s.points) {
    ops.insert((*p)["op"].get<std::string>());
    devices.insert((*p)["device"].get<std::string>());
    variants.insert((*p)["variant_id"].get<std::string>());
  }
  auto join = [](const std::set<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
    return out;
  };
  return fmt::format("{} points: ops {}; devices {}; variants {}", s.points.size(), join(ops), join(devices),
                     join(variants));
}

}  // namespace

CompareBy parse_compare_by(const std::string& text) {
  CompareBy by;
  const auto eq = text.find('=');
  by.attr = text.substr(0, eq);
  if (!kAttrs.count(by.attr))
    throw Error(
        fmt::format("--by '{}': expected experiment, device, variant, precision or commit, optionally "
                    "=REFERENCE,CANDIDATE,...",
                    text));
  if (eq != std::string::npos) {
    by.values = split(text.substr(eq + 1), ',');
    for (const auto& v : by.values)
      if (v.empty()) throw Error(fmt::format("--by '{}': an empty value", text));
    if (by.values.size() < 2) throw Error(fmt::format("--by '{}': expected at least two values to compare", text));
  }
  return by;
}

std::vector<CompareSide> make_sides(const std::vector<RecordedExperiment>& exps, const CompareBy& by) {
  std::vector<CompareSide> sides;
  if (by.attr == "experiment") {
    for (const auto& e : exps) {
      CompareSide s{e.label(), {}};
      for (const auto& p : e.points) s.points.push_back(&p);
      sides.push_back(std::move(s));
    }
    if (sides.size() < 2)
      throw Error("compare needs two experiment folders or more, or --by ATTR=A,B within one (docs/compare.md)");
    return sides;
  }
  std::vector<std::string> values = by.values;
  std::vector<std::string> seen;  // every value present, in order
  for (const auto& e : exps)
    for (const auto& p : e.points) {
      const auto v = attr_value(p, e, by.attr);
      if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
    }
  if (values.empty()) values = seen;
  std::string there;
  for (const auto& v : seen) there += (there.empty() ? "" : ", ") + v;
  if (values.size() < 2)
    throw Error(
        fmt::format("--by {}: the experiments hold one {} only ({}): nothing to compare", by.attr, by.attr, there));
  for (const auto& want : values) {
    CompareSide s{fmt::format("{}={}", by.attr, want), {}};
    for (const auto& e : exps)
      for (const auto& p : e.points)
        if (matches(attr_value(p, e, by.attr), want, p, by.attr)) s.points.push_back(&p);
    if (s.points.empty())
      throw Error(fmt::format("--by {}: no point has {} '{}'; there are: {}", by.attr, by.attr, want, there));
    sides.push_back(std::move(s));
  }
  return sides;
}

std::string point_key(const nlohmann::json& r, const std::string& attr) {
  nlohmann::json k = {{"op", r["op"]}, {"sizes", r["sizes"]}};
  if (attr != "device") k["device"] = r["device"];
  if (attr != "precision") k["precision"] = r["precision"];
  if (attr == "device") {  // another backend names the same kernel with another id
    k["variant"] = r["variant"];
    k["params"] = r["params"];
  } else if (attr != "variant") {
    k["variant_id"] = r["variant_id"];
    k["params"] = r["params"];
  }
  return k.dump();
}

std::string pair_group(const ComparedPair& p, const std::string& attr) {
  if (p.best_own) return fmt::format("{} best own {}", (*p.ref)["op"].get<std::string>(),
                                     (*p.ref)["precision"].get<std::string>());
  return point_group(*p.ref, attr);
}

std::string point_group(const nlohmann::json& r, const std::string& attr) {
  std::string g = r["op"].get<std::string>();
  if (attr != "variant") g += " " + r[attr == "device" ? "variant" : "variant_id"].get<std::string>();
  if (attr != "device") g += " " + r["device"].get<std::string>();
  if (attr != "precision") g += " " + r["precision"].get<std::string>();
  return g;
}

Comparison compare_sides(const std::vector<CompareSide>& sides, const std::string& attr, double threshold,
                         double max_threshold) {
  Comparison c;
  c.attr = attr;
  c.threshold = threshold;
  c.max_threshold = max_threshold;
  for (const auto& s : sides) c.labels.push_back(s.label);
  c.unpaired.assign(sides.size(), 0);
  // Key -> the reference's points with it, in order; the n-th occurrence pairs with the n-th.
  auto index = [&](const CompareSide& s) {
    std::map<std::string, std::vector<const nlohmann::json*>> m;
    for (const auto* p : s.points) m[point_key(*p, attr)].push_back(p);
    return m;
  };
  const auto ref = index(sides[0]);
  for (std::size_t si = 1; si < sides.size(); ++si) {
    std::map<std::string, std::size_t> occurrence;
    for (const auto* p : sides[si].points) {
      const auto key = point_key(*p, attr);
      const std::size_t n = occurrence[key]++;
      const auto it = ref.find(key);
      if (it == ref.end() || n >= it->second.size()) continue;
      const auto* r = it->second[n];
      c.pairs.push_back({r, p, si, judge_records(*r, *p, threshold, max_threshold)});
    }
  }
  if (attr == "device") {
    // Per problem, the fastest ok own point of a side (its median time), as every other
    // "best" is chosen (engine/record/query).
    auto fastest = [](const CompareSide& s) {
      std::vector<const nlohmann::json*> own;
      for (const auto* p : s.points)
        if (p->value("kind", "") != "library") own.push_back(p);
      std::map<std::string, std::pair<const nlohmann::json*, double>> m;
      for (const auto& b : query::best_per_group(own, {}, query::Metric::parse("time"),
                                                 query::group_by({"op", "precision", "sizes"})).groups)
        m[b.group] = {own[b.index], b.value};
      return m;
    };
    const auto ref_best = fastest(sides[0]);
    for (std::size_t si = 1; si < sides.size(); ++si)
      for (const auto& [key, cand] : fastest(sides[si])) {
        const auto it = ref_best.find(key);
        if (it == ref_best.end()) continue;
        const auto* r = it->second.first;
        const auto* p = cand.first;  // a structured binding: not capturable by clang 14's lambdas
        const bool twin =
            std::any_of(c.pairs.begin(), c.pairs.end(), [&](const ComparedPair& q) { return q.ref == r && q.cand == p; });
        if (twin) continue;
        c.pairs.push_back({r, p, si, judge_records(*r, *p, threshold, max_threshold), true});
      }
  }
  // Unpaired: in no pair at all (a point that only a best-own pair took is paired).
  std::set<const nlohmann::json*> in_pair;
  for (const auto& p : c.pairs) in_pair.insert({p.ref, p.cand});
  for (std::size_t si = 0; si < sides.size(); ++si)
    c.unpaired[si] = static_cast<std::size_t>(std::count_if(sides[si].points.begin(), sides[si].points.end(),
                                                            [&](const auto* p) { return !in_pair.count(p); }));
  if (c.pairs.empty()) {
    std::string what;
    for (const auto& s : sides) what += fmt::format("\n  {}: {}", s.label, describe(s));
    throw Error(
        fmt::format("nothing in common: no point of {} has a counterpart in {} (a point is the same op, "
                    "variant, device, precision, sizes and parameters, less the compared {}{}){}",
                    c.labels.size() > 2 ? "the others" : c.labels[1], c.labels[0], attr,
                    attr == "device" ? "; and no problem has an ok own point on both devices" : "", what));
  }
  return c;
}

int gate(const Comparison& c, const std::set<Verdict>& fail_on) {
  for (const auto& p : c.pairs)
    if (fail_on.count(p.j.verdict)) return 1;
  return 0;
}

}  // namespace hetbench
