#include "hetbench/op.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/ranges.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

namespace {
std::vector<std::unique_ptr<Op>>& op_registry() {
  static std::vector<std::unique_ptr<Op>> ops;
  return ops;
}
}  // namespace

std::string format_sizes(const Sizes& s) {
  std::string out;
  for (const auto& [k, v] : s) out += fmt::format("{}{}={}", out.empty() ? "" : ",", k, v);
  return s.input.empty() ? out : fmt::format("{} ({})", s.input, out);
}

nlohmann::json meaningful_sizes(const std::string& op, const std::string& precision, nlohmann::json sizes) {
  const Op* o = op_named(op);
  if (!o || !sizes.is_object()) return sizes;
  Precision p;
  try {
    p = parse_precision(precision);
  } catch (const Error&) {
    return sizes;
  }
  for (const auto& a : o->signature().axes) {
    const auto keys = a.keys();
    if (!a.precisions.empty() && std::find(a.precisions.begin(), a.precisions.end(), p) == a.precisions.end()) {
      for (const auto& k : keys) sizes.erase(k);
      continue;
    }
    // A choice kept as 0/1 flags reads as the value chosen: direction=d2h, not bidir=0,d2h=1.
    if (a.kind != Axis::Kind::Choice || !a.indicators) continue;
    if (std::none_of(keys.begin(), keys.end(), [&](const std::string& k) { return sizes.contains(k); })) continue;
    std::string chosen = a.values.front();
    for (const auto& k : keys)
      if (sizes.contains(k) && sizes[k].is_number() && sizes[k].get<double>() != 0) chosen = k;
    for (const auto& k : keys) sizes.erase(k);
    sizes[a.name] = chosen;
  }
  return sizes;
}

void to_json(nlohmann::json& j, const Sizes& s) {
  j = nlohmann::json::object();
  for (const auto& [k, v] : s) j[k] = v;
  if (!s.input.empty()) j["input"] = s.input;
}

nlohmann::json to_json(const Validation& v) {
  return {{"passed", v.passed()},   {"max_err_over_bound", v.max_ratio}, {"max_abs_err", v.max_abs_err},
          {"max_rel_err", v.max_rel_err}, {"checked", v.checked},     {"nan", v.nan},
          {"unwritten", v.unwritten}, {"over_bound", v.over_bound},   {"bound", v.bound},
          {"note", v.note}};
}

const ArrayOperand& Problem::array(const std::string& name) const {
  for (const auto& a : arrays)
    if (a.name == name) return a;
  throw Error(fmt::format("internal: problem has no array '{}'", name));
}

const ScalarOperand* Problem::scalar(const std::string& name) const {
  for (const auto& s : scalars)
    if (s.name == name) return &s;
  return nullptr;
}

// Every dimension the same order; choices at their defaults (written only when not
// optional) or as the token's @value suffixes name them: "2^20@exclusive".
std::vector<Sizes> Op::parse_sizes(const std::string& token) const {
  const auto& axes = signature().axes;
  Sizes choices;
  for (const auto& a : axes)
    if (a.kind == Axis::Kind::Choice && !a.optional) a.set(choices, std::size_t{0});
  const std::size_t at = token.find('@');
  for (std::size_t i = at; i != std::string::npos;) {
    const std::size_t next = token.find('@', i + 1);
    const std::string v = token.substr(i + 1, next == std::string::npos ? std::string::npos : next - i - 1);
    if (!signature().set_choice(choices, v)) {
      std::vector<std::string> names, values;
      for (const auto& a : axes)
        if (a.kind == Axis::Kind::Choice) {
          names.push_back(a.name);
          values.insert(values.end(), a.values.begin(), a.values.end());
        }
      if (names.empty()) throw Error(fmt::format("size '{}': op {} takes no @ suffix such as '{}'", token, name(), v));
      const std::string last = values.back();
      values.pop_back();
      throw Error(fmt::format("unknown {} {} '{}' in size '{}': expected {}{}{}", name(), fmt::join(names, " or "), v,
                              token, fmt::join(values, ", "), values.empty() ? "" : " or ", last));
    }
    i = next;
  }
  std::vector<Sizes> out;
  const std::string first = axes.empty() ? "n" : axes.front().name;
  for (long long n : parse_int_list(token.substr(0, at), "size")) {
    if (n < 1) throw Error(fmt::format("size {} = {} is impossible: {} needs {} >= 1", first, n, name(), first));
    Sizes s = choices;
    for (const auto& a : axes)
      if (a.kind == Axis::Kind::Dimension) s[a.name] = n;
    out.push_back(s);
  }
  return out;
}

std::vector<Sizes> Op::parse_input(const std::string& token, std::uint64_t) const {
  throw Error(fmt::format("op {} takes no input such as '{}': give its problems with --size", name(), token));
}

nlohmann::json Op::features(const Sizes& s, std::uint64_t) const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : s) j[k] = v;
  return j;
}

void register_op(std::unique_ptr<Op> op) { op_registry().push_back(std::move(op)); }

const Op* op_named(const std::string& name) {
  auto find = [&]() -> const Op* {
    for (const auto& o : op_registry())
      if (o->name() == name) return o.get();
    return nullptr;
  };
  if (const Op* o = find()) return o;
  // Ops declared by kernel metadata (ops/declared_op.hpp) exist once the metadata is read.
  all_variants();
  return find();
}

std::vector<Precision> default_precisions(const Op& op) {
  std::vector<Precision> out;
  const auto has = op.precisions();
  for (auto p : {Precision::S, Precision::D})
    if (std::find(has.begin(), has.end(), p) != has.end()) out.push_back(p);
  return out.empty() ? has : out;
}

std::vector<Precision> default_precisions(const std::string& op) {
  if (const Op* o = op_named(op)) return default_precisions(*o);
  return {Precision::S, Precision::D};
}

const Op& find_op(const std::string& name) {
  if (const Op* o = op_named(name)) return *o;
  std::string names;
  for (const auto& o : op_registry()) names += (names.empty() ? "" : ", ") + o->name();
  throw Error(fmt::format("unknown op '{}': available ops are {}", name, names));
}

std::vector<const Op*> all_ops() {
  std::vector<const Op*> out;
  for (const auto& o : op_registry()) out.push_back(o.get());
  return out;
}

}  // namespace hetbench
