// Per point: the parameter values not given on the command line (tuning database, else
// the metadata default of the precision) and, for `--variant auto`, the variant itself.
// Part of the plan, and as pure: the database comes in as a TuningLookup, which plan
// tests replace with a fake (docs/tuning-db.md says why the lookup is made here).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/device.hpp"
#include "hetbench/variant.hpp"
#include "tuning/db.hpp"

namespace hetbench {

struct RunPlan;

// Whether x is one of the parameter's values (its domain).
bool in_domain(const ParamDef& p, long long x);

// The cartesian product of the given values of the variant's parameters (for the others
// their metadata defaults, or with whole_domains — tune's space — every value of their
// domain; there, the parameters a variant's metadata candidates name take the candidates'
// combinations unless one of them is given), less the sets with a value outside the
// variant's domain.
std::vector<ParamValues> param_sets(const Variant& v, const std::map<std::string, std::vector<long long>>& given,
                                   bool whole_domains = false);

struct ResolvedParams {
  ParamValues values;
  std::map<std::string, std::string> source;  // parameter -> "command line", "db:<id> ...", "metadata D"
  // A layout op's problem named no layout and the database entry has one: the size
  // token (Sizes::input) that names it; source["LAYOUT"] says where it came from.
  std::string layout;
  std::string note;  // why the entry's layout could not be taken (a plan message), or empty
};

// The key of a layout in param_source (docs/tuning-db.md): a layout is chosen like a
// parameter, though it is part of the problem's sizes.
inline constexpr const char* kLayoutKey = "LAYOUT";

struct AutoPick {
  const Variant* variant = nullptr;
  std::optional<tuning::LookupHit> hit;  // the database entry it came from
  nlohmann::json why;                    // {"chosen": id, "reason": ...}
};

class ParamResolver {
 public:
  explicit ParamResolver(const tuning::TuningLookup* db) : db_(db) {}
  // `set` holds the given values (and metadata defaults for the rest); the rest are
  // resolved again here. `hit`: an entry already found (by auto) for this variant.
  // `auto_point`: the point is auto's, so without a database entry its parameter rule
  // (Op::param_rules) comes before the metadata defaults.
  ResolvedParams resolve(const RunPlan& r, std::size_t size, const Device& dev, Precision p, const Variant& v,
                         const ParamValues& set, const std::optional<tuning::LookupHit>& hit = std::nullopt,
                         bool auto_point = false);
  // The variant of an auto point: the database's nearest entry among the op's own
  // variants on the device, else the built-in rule; nullopt when none runs there.
  std::optional<AutoPick> pick(const RunPlan& r, std::size_t size, const Device& dev, Precision p);

 private:
  const std::string& hash(const Variant& v);
  const tuning::ProblemClass& problem(const RunPlan& r, std::size_t size);
  std::optional<tuning::LookupHit> lookup(const RunPlan& r, std::size_t size, const Device& dev, Precision p,
                                          const std::vector<const Variant*>& vs);
  bool has_layouts(const RunPlan& r);
  const tuning::TuningLookup* db_;
  std::map<const Variant*, std::string> hashes_;
  std::map<const RunPlan*, bool> layout_ops_;
  std::map<std::pair<const RunPlan*, std::size_t>, tuning::ProblemClass> classes_;
};

}  // namespace hetbench
