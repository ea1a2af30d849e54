#include "engine/plan/plan.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "engine/plan/plan_params.hpp"
#include "hetbench/error.hpp"
#include "ops/layout_arch.hpp"
#include "util/ranges.hpp"

namespace hetbench {

namespace {


template <class T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string precision_list(const std::vector<Precision>& ps) {
  std::string s;
  for (auto p : ps) s += (s.empty() ? "" : ", ") + std::string(name(p));
  return s;
}

// "4096@NN,3001x5003x997@NT" is two tokens: a suffix applies to the list before it and
// ends the token, so a comma after a suffix without a value list (@NN, @soa; not
// @stride=2,9, whose list goes on) starts the next, provided every piece ends in a suffix
// of its own. Otherwise ("256@NT,512") the token stays whole, and the op says what is
// wrong with it.
std::vector<std::string> split_suffixed(const std::string& token) {
  std::vector<std::string> pieces;
  std::string cur;
  std::size_t start = 0;
  while (start <= token.size()) {
    const auto comma = token.find(',', start);
    const auto part = token.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto at = cur.rfind('@');
    if (at != std::string::npos && cur.find('=', at) == std::string::npos) {
      pieces.push_back(cur);
      cur = part;
    } else {
      cur = cur.empty() && pieces.empty() && start == 0 ? part : cur + "," + part;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  pieces.push_back(cur);
  if (pieces.size() < 2) return {token};
  for (const auto& p : pieces)
    if (p.find('@') == std::string::npos || p.front() == '@') return {token};
  return pieces;
}

std::vector<std::shared_ptr<Variant>> choose_variants(const RunSpec& spec,
                                                      const std::vector<std::shared_ptr<Variant>>& candidates) {
  if (contains(spec.variants, std::string("all"))) return candidates;
  std::vector<std::shared_ptr<Variant>> chosen;
  for (const auto& name : spec.variants) {
    if (name == "auto") continue;  // chosen per point (auto_pool)
    if (name == "libraries") {     // every vendor-library baseline this build has
      for (const auto& v : candidates)
        if (v->kind == VariantKind::Library) chosen.push_back(v);
      continue;
    }
    bool hit = false;
    for (const auto& v : candidates)
      if (v->name == name || v->id() == name) {
        chosen.push_back(v);
        hit = true;
      }
    if (!hit) {
      std::string ids;
      for (const auto& v : candidates) ids += fmt::format("{}{}", ids.empty() ? "" : ", ", v->id());
      throw Error(fmt::format("unknown variant '{}' of {}: available are {}", name, spec.op, ids));
    }
  }
  return chosen;
}

void check_named_precisions(const RunSpec& spec, const std::vector<std::shared_ptr<Variant>>& chosen) {
  if (contains(spec.variants, std::string("all")) || contains(spec.variants, std::string("libraries"))) return;
  // A variant named on purpose that has none of the asked precisions is a mistake, not
  // a silent empty run ("all" just skips such variants).
  for (const auto& v : chosen) {
    bool any = false;
    for (auto p : spec.precisions) any |= contains(v->precisions, p);
    if (!any)
      throw Error(fmt::format("variant {} has no {} version (it has {})", v->id(), precision_list(spec.precisions),
                              precision_list(v->precisions)));
  }
}

// Parameter values given by the user: each name must belong to a chosen variant and each
// value must lie in the domain of at least one of them; a variant whose domain lacks a
// value just leaves it out.
std::map<std::string, std::vector<long long>> given_params(const RunSpec& spec,
                                                           const std::vector<std::shared_ptr<Variant>>& chosen) {
  std::map<std::string, std::vector<long long>> given;
  for (const auto& [pname, list] : spec.params) {
    given[pname] = parse_int_list(list, "parameter " + pname);
    std::vector<const Variant*> owners;
    for (const auto& v : chosen)
      if (v->param(pname)) owners.push_back(v.get());
    if (owners.empty()) throw Error(fmt::format("unknown parameter '{}': no chosen variant of {} has it", pname, spec.op));
    for (auto x : given[pname]) {
      bool somewhere = false;
      for (const auto* v : owners) somewhere |= in_domain(*v->param(pname), x);
      if (somewhere) continue;
      std::string dom;
      for (const auto* v : owners) {
        std::string vals;
        for (auto y : v->param(pname)->values) vals += fmt::format("{}{}", vals.empty() ? "" : ",", y);
        dom += fmt::format("{}{} ({})", dom.empty() ? "" : "; ", v->id(), vals);
      }
      throw Error(fmt::format("parameter {}={} is outside the domain of {}", pname, x, dom));
    }
  }
  return given;
}

// Ops with an input (spmv's matrices) take problems from it, the others from --size.
// Among several inputs, a file that cannot be read becomes a size holding only its name,
// with the reader's message in `errors`: a corpus with one bad file still measures the
// rest. A lone input, and a generator's arguments, are bad input as before.
std::vector<Sizes> problem_sizes(const RunSpec& spec, const Op& op, std::uint64_t seed, std::vector<std::string>& errors) {
  const std::string kind = op.input_kind();
  if (kind.empty() && !spec.inputs.empty())
    throw Error(fmt::format("op {} takes no --matrix ('{}'): give its problems with --size", spec.op, spec.inputs[0]));
  if (!kind.empty() && !spec.sizes.empty())
    throw Error(fmt::format("op {} takes its problems from --{} (a file or gen:NAME:...), not --size '{}'", spec.op,
                            kind, spec.sizes[0]));
  if (kind.empty() && spec.sizes.empty() && op.fixed_size().empty())
    throw Error(fmt::format("no size given for {}", spec.op));
  if (!kind.empty() && spec.inputs.empty())
    throw Error(fmt::format("no --{} given for {}: a Matrix Market file or a generator such as gen:poisson3d:n=64",
                            kind, spec.op));
  std::vector<Sizes> sizes;
  const std::vector<std::string> fixed{op.fixed_size()};
  for (const auto& whole : spec.sizes.empty() && kind.empty() ? fixed : spec.sizes)
    for (const auto& tok : split_suffixed(whole))
      for (auto& s : op.parse_sizes(tok)) sizes.push_back(s);
  errors.assign(sizes.size(), "");
  for (const auto& tok : spec.inputs) {
    try {
      for (auto& s : op.parse_input(tok, seed)) {
        sizes.push_back(s);
        errors.emplace_back();
      }
    } catch (const InputError& e) {
      if (spec.inputs.size() == 1) throw;
      Sizes bad;
      bad.input = tok;
      sizes.push_back(bad);
      errors.emplace_back(e.what());
    }
  }
  return sizes;
}

}  // namespace

RunPlan plan_run(const RunSpec& spec, std::uint64_t seed, const Op& op,
                 const std::vector<std::shared_ptr<Variant>>& candidates,
                 const std::vector<std::shared_ptr<Device>>& devices) {
  RunPlan r;
  r.spec = &spec;
  r.op = &op;
  r.devices = devices;
  auto chosen = choose_variants(spec, candidates);
  for (auto p : spec.precisions)
    if (!contains(op.precisions(), p)) throw Error(fmt::format("op {} has no {} precision", spec.op, name(p)));
  check_named_precisions(spec, chosen);
  // Only variants that run on a chosen device count from here on.
  std::erase_if(chosen, [&](const std::shared_ptr<Variant>& v) {
    return std::none_of(devices.begin(), devices.end(),
                        [&](const auto& d) { return d->kernel_language() == v->backend; });
  });
  if (contains(spec.variants, std::string("auto")))
    for (const auto& v : candidates)
      if (v->kind != VariantKind::Library &&
          std::any_of(devices.begin(), devices.end(), [&](const auto& d) { return d->kernel_language() == v->backend; }))
        r.auto_pool.push_back(v);
  auto owners = chosen;
  owners.insert(owners.end(), r.auto_pool.begin(), r.auto_pool.end());
  r.given = given_params(spec, owners);
  for (const auto& v : chosen) {
    auto sets = param_sets(*v, r.given, spec.whole_domains);
    if (!sets.empty()) r.variants.push_back({v, std::move(sets)});
  }
  if (r.variants.empty() && r.auto_pool.empty())
    throw Error(fmt::format("none of the chosen variants of {} runs on the chosen devices ({})", spec.op, spec.devices));
  r.sizes = problem_sizes(spec, op, seed, r.input_errors);
  // An unreadable input has no features: asking would only read the file again.
  for (std::size_t i = 0; i < r.sizes.size(); ++i)
    r.features.push_back(r.input_errors[i].empty() ? op.features(r.sizes[i], seed) : nlohmann::json::object());
  check_measurement(spec);
  if (spec.warmup < 0) throw Error(fmt::format("--warmup {} is impossible", spec.warmup));
  // Memory, up front: a point that cannot fit is bad input, not a measurement.
  for (const auto& d : devices)
    for (std::size_t si = 0; si < r.sizes.size(); ++si)
      for (auto p : spec.precisions) {
        if (!r.input_errors[si].empty()) continue;
        const auto& s = r.sizes[si];
        if (auto why = op.problem_misfit(s, p); !why.empty())
          throw Error(fmt::format("{} {} at {}: {}", spec.op, name(p), format_sizes(s), why));
        auto need = op.device_bytes(s, p);
        const auto& di = d->info();
        if (auto why = op.device_fit(s, p, di); !why.empty())
          throw Error(fmt::format("{} {} on {} ({}): {}", spec.op, name(p), di.id, di.name, why));
        if (di.global_mem && need > static_cast<double>(di.global_mem))
          throw Error(fmt::format("{} {} at {} needs {:.3g} GB, more than the {:.3g} GB of {} ({})", spec.op, name(p),
                                  format_sizes(s), need / 1e9, di.global_mem / 1e9, di.id, di.name));
        // A device that does not say its memory still has 64-bit addresses: a count past
        // them would wrap around in the size arithmetic that builds the problem.
        if (need >= kAddressableBytes)
          throw Error(fmt::format("{} {} at {} needs {:.3g} bytes, more than 64-bit addresses reach", spec.op,
                                  name(p), format_sizes(s), need));
      }
  return r;
}

Plan plan_points(std::vector<RunPlan> runs, const tuning::TuningLookup* db) {
  Plan plan;
  plan.runs = std::move(runs);
  ParamResolver resolver(db);
  std::set<std::string> said;
  // The sizes each run was given; a layout taken from the database adds a size after them.
  std::vector<std::size_t> given_sizes;
  for (const auto& r : plan.runs) given_sizes.push_back(r.sizes.size());
  auto note = [&](const std::string& m) {
    if (said.insert(m).second) plan.left_out.push_back(m);
  };
  // The size `si` placed by the layout `token`: added to the run once, after its own sizes.
  auto with_layout = [&](std::size_t ri, std::size_t si, const std::string& token) {
    auto& r = plan.runs[ri];
    Sizes s = r.sizes[si];
    s.input = token;
    for (std::size_t j = given_sizes[ri]; j < r.sizes.size(); ++j)
      if (r.sizes[j] == s) return j;
    r.sizes.push_back(s);
    r.features.push_back(r.features[si]);  // the problem class does not depend on the layout
    r.input_errors.emplace_back();
    return r.sizes.size() - 1;
  };
  // A layout file of several Arch sections: the device's own section (ops/layout_arch),
  // read once per run, size and device rather than once per variant and parameter set.
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::optional<DeviceLayout>> device_sections;
  auto device_section = [&](std::size_t ri, std::size_t si, std::size_t di) -> const std::optional<DeviceLayout>& {
    const auto key = std::make_tuple(ri, si, di);
    if (auto it = device_sections.find(key); it != device_sections.end()) return it->second;
    const auto& r = plan.runs[ri];
    std::optional<DeviceLayout> arch;
    if (r.input_errors[si].empty()) arch = layout_for_device(r.op->name(), r.sizes[si], r.devices[di]->info());
    return device_sections.emplace(key, std::move(arch)).first->second;
  };
  auto add = [&](std::size_t ri, Precision prec, std::size_t si, std::size_t di, const Variant& v,
                 const ParamValues& set, const std::optional<tuning::LookupHit>& hit, nlohmann::json why) {
    const Device& dev = *plan.runs[ri].devices[di];
    const std::optional<DeviceLayout> arch = device_section(ri, si, di);
    if (arch) {
      si = with_layout(ri, si, arch->token);
      if (!arch->match.matched) note(arch->match.why);
    }
    const auto& r = plan.runs[ri];
    auto res = resolver.resolve(r, si, dev, prec, v, set, hit, !why.is_null());
    if (arch) res.source[kLayoutKey] = arch->match.why;
    if (!res.note.empty()) note(res.note);
    if (!res.layout.empty()) {
      Sizes s = r.sizes[si];
      s.input = res.layout;
      if (auto misfit = r.op->device_fit(s, prec, dev.info()); !misfit.empty()) {
        res.source[kLayoutKey] = fmt::format("op default ({}'s layout does not fit: {})", res.source[kLayoutKey], misfit);
        note(fmt::format("the tuning database's layout {} for {} does not fit {}: {}", res.layout, format_sizes(s),
                         dev.id(), misfit));
      } else {
        si = with_layout(ri, si, res.layout);
      }
    }
    auto skip = v.violated_constraint(dev, r.sizes[si], prec, res.values);
    plan.points.push_back({ri, prec, si, di, &v, std::move(res.values), std::move(res.source), std::move(why), std::move(skip), ""});
  };
  // A point whose input could not be read keeps what it would have run, unresolved: the
  // database and the constraints need the problem it lacks.
  auto add_unread = [&](std::size_t ri, Precision prec, std::size_t si, std::size_t di, const Variant& v,
                        const ParamValues& set, nlohmann::json why) {
    plan.points.push_back({ri, prec, si, di, &v, set, {}, std::move(why), "", plan.runs[ri].input_errors[si]});
  };
  for (std::size_t ri = 0; ri < plan.runs.size(); ++ri) {
    const auto& r = plan.runs[ri];
    // With "all", a variant that has no version in a precision is expected, not news: only
    // variants named on purpose, and device reasons (no FP64, an extension), are said.
    const bool all = std::find(r.spec->variants.begin(), r.spec->variants.end(), "all") != r.spec->variants.end();
    for (std::size_t si = 0; si < given_sizes[ri]; ++si)
      if (!r.input_errors[si].empty())
        plan.left_out.push_back(fmt::format("cannot read input '{}', its points are recorded as errors: {}",
                                            r.sizes[si].input, r.input_errors[si]));
    for (auto prec : r.spec->precisions)
      for (std::size_t si = 0; si < given_sizes[ri]; ++si)
        for (std::size_t di = 0; di < r.devices.size(); ++di) {
          const Device& dev = *r.devices[di];
          const bool unread = !r.input_errors[si].empty();
          if (!r.auto_pool.empty() && unread) {
            // Nothing to choose by: the pool's first variant stands for the choice.
            for (const auto& v : r.auto_pool)
              if (v->backend == dev.kernel_language() && v->unsupported_reason(dev, prec).empty()) {
                auto sets = param_sets(*v, r.given);
                add_unread(ri, prec, si, di, *v, sets.empty() ? ParamValues{} : sets.front(),
                           {{"chosen", nullptr}, {"reason", "the input could not be read"}});
                break;
              }
          } else if (!r.auto_pool.empty()) {
            if (auto pick = resolver.pick(r, si, dev, prec)) {
              auto sets = param_sets(*pick->variant, r.given);
              if (sets.empty()) sets = param_sets(*pick->variant, {});
              for (const auto& set : sets) add(ri, prec, si, di, *pick->variant, set, pick->hit, pick->why);
            } else if (said.insert("auto|" + dev.id() + "|" + name(prec)).second) {
              plan.left_out.push_back(
                  fmt::format("skipping auto on {} in {}: no own variant of {} runs there", dev.id(), name(prec), r.op->name()));
            }
          }
          for (const auto& pv : r.variants) {
            const Variant& v = *pv.variant;
            if (v.backend != dev.kernel_language()) continue;
            if (auto why = v.unsupported_reason(dev, prec); !why.empty()) {
              const bool has_prec = std::find(v.precisions.begin(), v.precisions.end(), prec) != v.precisions.end();
              // "libraries" is a set like "all": a baseline without the precision is expected.
              const bool named = !all && std::any_of(r.spec->variants.begin(), r.spec->variants.end(),
                                                     [&](const std::string& n) { return n == v.name || n == v.id(); });
              if ((has_prec || named) && said.insert(v.id() + "|" + dev.id() + "|" + name(prec)).second)
                plan.left_out.push_back(fmt::format("skipping {} on {} in {}: {}", v.id(), dev.id(), name(prec), why));
              continue;
            }
            for (const auto& params : pv.param_sets)
              if (unread) add_unread(ri, prec, si, di, v, params, nullptr);
              else add(ri, prec, si, di, v, params, std::nullopt, nullptr);
          }
        }
    // A device the run names that none of its variants runs on would vanish from the
    // table without a word (`--device opencl:0:0,host --variant vec`): say so.
    if (r.auto_pool.empty())
      for (const auto& dev_ptr : r.devices) {
        const Device& dev = *dev_ptr;
        const bool any = std::any_of(r.variants.begin(), r.variants.end(),
                                     [&](const auto& pv) { return pv.variant->backend == dev.kernel_language(); });
        if (any || r.variants.empty()) continue;
        std::string names, there;
        for (const auto& pv : r.variants) names += fmt::format("{}{}", names.empty() ? "" : ", ", pv.variant->name);
        for (const auto& v : variants_for(r.op->name()))
          if (v->backend == dev.kernel_language()) there += fmt::format("{}{}", there.empty() ? "" : ", ", v->name);
        note(fmt::format("nothing to run on {}: {} {} no {} variant{}", dev.id(), names,
                         r.variants.size() == 1 ? "has" : "have", to_string(dev.kernel_language()),
                         there.empty() ? fmt::format(" (no variant of {} runs there)", r.op->name())
                                       : fmt::format(" ({}'s there: {})", r.op->name(), there)));
      }
  }
  return plan;
}

Plan plan_experiment(const Experiment& e, const tuning::TuningLookup* db) {
  std::vector<RunPlan> runs;
  for (const auto& r : e.runs) {
    const Op& op = find_op(r.op);
    auto candidates = variants_for(r.op);
    runs.push_back(plan_run(r, e.seed, op, candidates, resolve_devices(r.devices)));
  }
  Plan plan = plan_points(std::move(runs), db);
  if (e.spec.is_object() && e.spec.contains("filter") && e.spec["filter"].is_string())
    filter_points(plan, e.spec["filter"].get<std::string>());
  return plan;
}

std::string point_name(const Plan& plan, const PlannedPoint& p) {
  const auto& run = plan.runs[p.run];
  const Sizes& s = run.sizes[p.size];
  return fmt::format("{}/{}/{}/{}", p.variant->id(), name(p.prec), s.input.empty() ? format_sizes(s) : s.input,
                     run.devices[p.device]->id());
}

namespace {

// A --filter pattern: the regex of its body and whether a leading '-' negates it; `where`
// names the pattern in errors.
struct Filter {
  std::regex re;
  bool negate = false;
};

Filter parse_filter(const std::string& pattern, const std::string& where) {
  const bool negate = !pattern.empty() && pattern[0] == '-';
  try {
    return {std::regex(negate ? pattern.substr(1) : pattern, std::regex::ECMAScript), negate};
  } catch (const std::regex_error& err) {
    throw Error(fmt::format("{} '{}': not a regular expression ({})", where, pattern, err.what()));
  }
}

}  // namespace

void check_filter(const std::string& pattern, const std::string& where) { (void)parse_filter(pattern, where); }

void filter_points(Plan& plan, const std::string& pattern) {
  const Filter f = parse_filter(pattern, "--filter");
  std::vector<PlannedPoint> kept;
  std::string examples;  // two names it left out, for the error
  int shown = 0;
  for (auto& p : plan.points) {
    const std::string n = point_name(plan, p);
    if (std::regex_search(n, f.re) != f.negate) kept.push_back(std::move(p));
    else if (shown++ < 2) examples += (examples.empty() ? "" : ", ") + n;
  }
  // Nothing planned at all is the planner's to say, not the filter's.
  if (kept.empty() && !plan.points.empty())
    throw Error(fmt::format("--filter '{}' leaves none of the {} planned points (names look like {})", pattern,
                            plan.points.size(), examples));
  plan.points = std::move(kept);
}

}  // namespace hetbench
