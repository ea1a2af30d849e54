#include "engine/plan/plan_params.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/plan/plan.hpp"
#include "hetbench/error.hpp"
#include "ops/layout_ref.hpp"
#include "tuning/auto_rule.hpp"

namespace hetbench {

bool in_domain(const ParamDef& p, long long x) { return std::find(p.values.begin(), p.values.end(), x) != p.values.end(); }

std::vector<ParamValues> param_sets(const Variant& v, const std::map<std::string, std::vector<long long>>& given,
                                   bool whole_domains) {
  std::vector<ParamValues> sets{ParamValues{}};
  // Tune's space over a variant with candidates: the parameters they name take the
  // candidates' combinations, not the product of their domains, unless one is given.
  std::set<std::string> by_candidates;
  if (whole_domains && !v.candidates.empty()) {
    for (const auto& c : v.candidates)
      for (const auto& kx : c) by_candidates.insert(kx.first);
    if (std::any_of(by_candidates.begin(), by_candidates.end(), [&](const auto& n) { return given.count(n) > 0; }))
      by_candidates.clear();
  }
  if (!by_candidates.empty()) {
    sets.clear();
    for (const auto& c : v.candidates) {
      ParamValues pv;
      for (const auto& n : by_candidates) pv[n] = c.count(n) ? c.at(n) : v.param(n)->def;
      if (std::find(sets.begin(), sets.end(), pv) == sets.end()) sets.push_back(std::move(pv));
    }
  }
  for (const auto& p : v.params) {
    if (by_candidates.count(p.name)) continue;
    std::vector<long long> vals = given.count(p.name) ? given.at(p.name)
                                  : whole_domains     ? p.values
                                                      : std::vector<long long>{p.def};
    std::vector<ParamValues> next;
    for (const auto& s : sets)
      for (auto x : vals) {
        auto t = s;
        t[p.name] = x;
        next.push_back(std::move(t));
      }
    sets = std::move(next);
  }
  std::erase_if(sets, [&](const ParamValues& pv) {
    return std::any_of(pv.begin(), pv.end(), [&](const auto& kx) { return !in_domain(*v.param(kx.first), kx.second); });
  });
  return sets;
}

const std::string& ParamResolver::hash(const Variant& v) {
  auto it = hashes_.find(&v);
  if (it == hashes_.end()) it = hashes_.emplace(&v, tuning::variant_hash(v)).first;
  return it->second;
}

const tuning::ProblemClass& ParamResolver::problem(const RunPlan& r, std::size_t size) {
  auto key = std::make_pair(&r, size);
  auto it = classes_.find(key);
  if (it == classes_.end()) {
    const auto& f = size < r.features.size() ? r.features[size] : nlohmann::json::object();
    it = classes_.emplace(key, tuning::classify(*r.op, r.sizes[size], f)).first;
  }
  return it->second;
}

std::optional<tuning::LookupHit> ParamResolver::lookup(const RunPlan& r, std::size_t size, const Device& dev,
                                                       Precision p, const std::vector<const Variant*>& vs) {
  if (!db_) return std::nullopt;
  tuning::LookupQuery q;
  q.device = tuning::DeviceIdentity::of(dev.info());
  for (const auto* v : vs) q.variants.push_back({v->id(), hash(*v)});
  q.precision = p;
  q.storage = tuning::storage_key(*r.op, r.sizes[size]);
  q.problem = problem(r, size);
  return db_->lookup(q);
}

bool ParamResolver::has_layouts(const RunPlan& r) {
  auto it = layout_ops_.find(&r);
  if (it == layout_ops_.end()) it = layout_ops_.emplace(&r, op_has_layouts(*r.op)).first;
  return it->second;
}

ResolvedParams ParamResolver::resolve(const RunPlan& r, std::size_t size, const Device& dev, Precision p,
                                      const Variant& v, const ParamValues& set,
                                      const std::optional<tuning::LookupHit>& found, bool auto_point) {
  ResolvedParams out;
  out.values = set;
  std::vector<const ParamDef*> open;  // not given on the command line
  for (const auto& d : v.params) {
    if (r.spec->whole_domains && set.count(d.name)) {  // tune: every value is part of the space
      out.source[d.name] = "tuning space";
      continue;
    }
    const auto g = r.given.find(d.name);
    if (g != r.given.end() && set.count(d.name) &&
        std::find(g->second.begin(), g->second.end(), set.at(d.name)) != g->second.end()) {
      out.source[d.name] = "command line";
      continue;
    }
    out.values[d.name] = d.default_for(p);
    out.source[d.name] = d.def_by_precision.count(p) ? fmt::format("metadata {}", name(p)) : "metadata";
    open.push_back(&d);
  }
  const Sizes& s = r.sizes[size];
  // A layout is resolved like a parameter: named in the size (command line or spec), part
  // of tune's space, else the database entry's, else the op's default.
  const bool layouts = has_layouts(r);
  const bool layout_open = layouts && s.input.empty() && !r.spec->whole_domains;
  if (layouts)
    out.source[kLayoutKey] = !s.input.empty() ? (r.spec->whole_domains ? "tuning space" : "command line") : "op default";
  if (open.empty() && !layout_open) return out;
  auto hit = found ? found : lookup(r, size, dev, p, {&v});
  // Values from elsewhere may break a constraint of this problem (a work-group larger
  // than n): then the defaults, unless they break it too.
  auto unless_broken = [&](ResolvedParams&& other) {
    if (!v.violated_constraint(dev, s, p, other.values).empty() && v.violated_constraint(dev, s, p, out.values).empty())
      return out;
    return std::move(other);
  };
  if (!hit && !r.spec->whole_domains) {
    // Nothing tuned near: the configuration a model of the op predicts best, over the
    // parameters not given (GEMM's shape model: docs/tuning-db.md, "The GEMM shape model").
    std::vector<std::string> given;
    for (const auto& d : v.params)
      if (std::find(open.begin(), open.end(), &d) == open.end()) given.push_back(d.name);
    const auto ranked = r.op->modelled_configs(v, dev, s, p, out.values, given, 1);
    if (!ranked.empty()) {
      ResolvedParams modelled = out;
      for (const auto* d : open)
        if (auto it = ranked.front().values.find(d->name);
            it != ranked.front().values.end() && it->second != out.values.at(d->name)) {
          modelled.values[d->name] = it->second;
          modelled.source[d->name] = ranked.front().why;
        }
      return unless_broken(std::move(modelled));
    }
  }
  if (!hit && auto_point) {  // nothing tuned near: auto's parameter rule
    const auto& f = size < r.features.size() ? r.features[size] : nlohmann::json::object();
    ResolvedParams ruled = out;
    const auto rule = r.op->param_rules(v, f);
    for (const auto* d : open)
      if (auto it = rule.find(d->name); it != rule.end() && in_domain(*d, it->second.value)) {
        ruled.values[d->name] = it->second.value;
        ruled.source[d->name] = it->second.why;
      }
    return unless_broken(std::move(ruled));
  }
  if (!hit) return out;
  ResolvedParams tuned = out;
  auto from = tuning::describe(*hit);
  const auto& tuned_layout = hit->entry.layout;
  if (layout_open && tuned_layout) {
    try {
      tuned.layout = layout_token(r.op->name(), *tuned_layout);
      tuned.source[kLayoutKey] = from;
    } catch (const InputError& e) {
      tuned.source[kLayoutKey] = fmt::format("op default ({}'s layout {}: {})", from, describe(*tuned_layout), e.what());
      tuned.note = fmt::format("tuning database entry {} chose layout {} for {}: {}; the op's default layout is "
                               "measured instead", hit->entry.id, describe(*tuned_layout), format_sizes(s), e.what());
    }
  } else if (layouts && !s.input.empty()) {
    // Parameters tuned together with another layout: still the nearest knowledge, said so.
    const auto mine = layout_ref(r.op->name(), s);
    if (tuned_layout != mine)
      from += fmt::format(", tuned with layout {}", tuned_layout ? describe(*tuned_layout) : "(default)");
  }
  for (const auto* d : open)
    if (auto it = hit->entry.params.find(d->name); it != hit->entry.params.end() && in_domain(*d, it->second)) {
      tuned.values[d->name] = it->second;
      tuned.source[d->name] = from;
    }
  return unless_broken(std::move(tuned));
}

std::optional<AutoPick> ParamResolver::pick(const RunPlan& r, std::size_t size, const Device& dev, Precision p) {
  std::vector<const Variant*> pool;
  for (const auto& v : r.auto_pool)
    if (v->backend == dev.kernel_language() && v->unsupported_reason(dev, p).empty()) pool.push_back(v.get());
  if (pool.empty()) return std::nullopt;
  AutoPick out;
  if (auto hit = lookup(r, size, dev, p, pool)) {
    for (const auto* v : pool)
      if (v->id() == hit->entry.variant_id) out.variant = v;
    out.why = {{"chosen", hit->entry.variant_id},
               {"reason", hit->layer.empty() ? fmt::format("db entry {}, {}, distance {:.3g}", hit->entry.id,
                                                           to_string(hit->level), hit->distance)
                                             : fmt::format("{} entry {}, {}, distance {:.3g}", hit->layer, hit->entry.id,
                                                           to_string(hit->level), hit->distance)}};
    out.hit = std::move(hit);
    return out;
  }
  std::vector<std::string> names;
  for (const auto* v : pool) names.push_back(v->name);
  const auto& f = size < r.features.size() ? r.features[size] : nlohmann::json::object();
  const auto rule = tuning::rule_choice(*r.op, f, names);
  for (const auto* v : pool)
    if (v->name == rule->name) out.variant = v;
  out.why = {{"chosen", out.variant->id()}, {"reason", rule->reason}};
  return out;
}

}  // namespace hetbench
