// The defaults of what tuning asks of an op (hetbench/op_rules.hpp): a problem's class is
// its dimensions, each in log2.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/op.hpp"

namespace hetbench {

double class_feature(const nlohmann::json& f, const char* key, const std::string& op) {
  if (!f.contains(key) || !f[key].is_number())
    throw Error(fmt::format("problem class of {}: feature '{}' is missing", op, key));
  return f[key].get<double>();
}

nlohmann::json Op::class_features(const Sizes& s, const nlohmann::json&) const {
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& a : signature().axes)
    if (a.kind == Axis::Kind::Dimension && s.count(a.name)) dims[a.name] = s.at(a.name);
  return dims;
}

ClassCoords dimension_class(const nlohmann::json& f, const std::string& op) {
  ClassCoords c;
  for (auto it = f.begin(); it != f.end(); ++it) {
    if (!it.value().is_number()) continue;
    c.coords.push_back(std::log2(std::max(it.value().get<double>(), 1.0)));
    c.label += fmt::format("{}{}=2^{}", c.label.empty() ? "" : " ", it.key(), std::lround(c.coords.back()));
    c.features[it.key()] = it.value();
  }
  if (c.coords.empty()) throw Error(fmt::format("problem class of {}: no dimension given", op));
  return c;
}

ClassCoords Op::problem_class(const nlohmann::json& f) const { return dimension_class(f, name()); }

}  // namespace hetbench
