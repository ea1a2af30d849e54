// Op signatures: the axes a problem is given by and the operands it holds, checked when
// a problem is made (Op::make_problem).
#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hetbench/error.hpp"
#include "hetbench/op.hpp"

namespace hetbench {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const char* access_name(Access a) { return a == Access::In ? "in" : a == Access::Out ? "out" : "inout"; }

}  // namespace

Axis Axis::dimension(std::string name, std::string doc) {
  Axis a;
  a.name = std::move(name);
  a.doc = std::move(doc);
  return a;
}

Axis Axis::opt_in_dimension(std::string name, std::int64_t absent, std::string doc) {
  Axis a = dimension(std::move(name), std::move(doc));
  a.optional = a.opt_in = true;
  a.absent_value = absent;
  return a;
}

Axis Axis::choice(std::string name, std::vector<std::string> values, std::string doc, bool indicators, bool optional) {
  Axis a;
  a.name = std::move(name);
  a.kind = Kind::Choice;
  a.values = std::move(values);
  a.doc = std::move(doc);
  a.indicators = indicators;
  a.optional = optional;
  return a;
}

std::vector<std::string> Axis::keys() const {
  if (kind == Kind::Choice && indicators) return {values.begin() + 1, values.end()};
  return {name};
}

std::size_t Axis::index(const Sizes& s) const {
  if (!indicators) {
    auto it = s.find(name);
    return it == s.end() ? 0 : static_cast<std::size_t>(it->second);
  }
  for (std::size_t i = 1; i < values.size(); ++i)
    if (auto it = s.find(values[i]); it != s.end() && it->second != 0) return i;
  return 0;
}

void Axis::set(Sizes& s, std::size_t index) const {
  if (!indicators) {
    s[name] = static_cast<std::int64_t>(index);
    return;
  }
  for (std::size_t i = 1; i < values.size(); ++i) s[values[i]] = i == index;
}

bool Axis::set(Sizes& s, const std::string& value) const {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (lower(values[i]) == lower(value)) {
      set(s, i);
      return true;
    }
  return false;
}

const OperandSpec* OpSignature::operand(const std::string& name) const {
  for (const auto& o : operands)
    if (o.name == name) return &o;
  return nullptr;
}

const Axis* OpSignature::axis(const std::string& name) const {
  for (const auto& a : axes)
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<std::string> OpSignature::size_keys() const {
  std::vector<std::string> out;
  for (const auto& a : axes)
    for (auto& k : a.keys()) out.push_back(std::move(k));
  return out;
}

bool OpSignature::set_choice(Sizes& s, const std::string& value) const {
  for (const auto& a : axes)
    if (a.kind == Axis::Kind::Choice && a.set(s, value)) return true;
  return false;
}

std::string OpSignature::check(const Sizes& s) const {
  const auto keys = size_keys();
  for (const auto& [k, v] : s)
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) return fmt::format("unknown size key '{}'", k);
  for (const auto& a : axes) {
    if (a.kind == Axis::Kind::Dimension) {
      auto it = s.find(a.name);
      if (it == s.end()) {
        if (a.optional) continue;
        return fmt::format("dimension '{}' is missing", a.name);
      }
      if (it->second < 0) return fmt::format("dimension {} = {} is negative", a.name, it->second);
      continue;
    }
    std::size_t on = 0;
    for (const auto& k : a.keys()) {
      auto it = s.find(k);
      if (it == s.end()) continue;
      const auto limit = a.indicators ? 1 : static_cast<std::int64_t>(a.values.size()) - 1;
      if (it->second < 0 || it->second > limit)
        return fmt::format("'{}' = {} is not a value of {} ({})", k, it->second, a.name, fmt::join(a.values, ", "));
      on += a.indicators && it->second != 0;
    }
    if (on > 1) return fmt::format("more than one value of {} is set", a.name);
  }
  return "";
}

std::unique_ptr<Problem> Op::make_problem(const Sizes& s, Precision p, std::uint64_t seed) const {
  const OpSignature& sig = signature();
  if (auto why = sig.check(s); !why.empty()) throw Error(fmt::format("{} problem {}: {}", name(), format_sizes(s), why));
  auto prob = build_problem(s, p, seed);
  // The problem must hold what the signature promises kernels and metadata.
  auto fail = [&](const std::string& what) {
    throw Error(fmt::format("internal: {} problem {} does not match the op's signature: {}", name(), format_sizes(s), what));
  };
  for (const auto& o : sig.operands) {
    const ArrayOperand* a = nullptr;
    for (const auto& x : prob->arrays)
      if (x.name == o.name) a = &x;
    const ScalarOperand* sc = prob->scalar(o.name);
    if (o.array != (a != nullptr) || (!o.array && !sc)) fail(fmt::format("operand '{}' missing or of another kind", o.name));
    const bool is_int = a ? a->is_int : sc->is_int;
    if (is_int != (o.elem == Elem::Int)) fail(fmt::format("operand '{}' has another element type", o.name));
    if (a && a->access != o.access && !(o.access == Access::InOut && a->access == Access::Out))
      fail(fmt::format("array '{}' is {}, the signature says {}", o.name, access_name(a->access), access_name(o.access)));
  }
  for (const auto& x : prob->arrays)
    if (!sig.operand(x.name)) fail(fmt::format("array '{}' is not in the signature", x.name));
  for (const auto& x : prob->scalars)
    if (!sig.operand(x.name)) fail(fmt::format("scalar '{}' is not in the signature", x.name));
  return prob;
}

}  // namespace hetbench
