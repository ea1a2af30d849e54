#include "tuning/problem_class.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench::tuning {

namespace {

ProblemClass from_coords(const std::string& op, ClassCoords c, double reach) {
  return {op, std::move(c.label), std::move(c.coords), std::move(c.weights), std::move(c.features), reach};
}

void check_object(const std::string& op, const nlohmann::json& features) {
  if (!features.is_object()) throw Error(fmt::format("problem class of {}: features must be an object", op));
}

}  // namespace

ProblemClass class_of(const Op& op, const nlohmann::json& features) {
  check_object(op.name(), features);
  return from_coords(op.name(), op.problem_class(features), op.class_reach());
}

ProblemClass classify_features(const std::string& op, const nlohmann::json& features) {
  if (const Op* o = op_named(op)) return class_of(*o, features);
  check_object(op, features);
  return from_coords(op, dimension_class(features, op), 2);
}

ProblemClass classify(const Op& op, const Sizes& sizes, const nlohmann::json& features) {
  return class_of(op, op.class_features(sizes, features));
}

double distance(const ProblemClass& a, const ProblemClass& b) {
  if (a.op != b.op || a.coords.size() != b.coords.size()) return std::numeric_limits<double>::infinity();
  double s = 0;
  for (std::size_t i = 0; i < a.coords.size(); ++i) {
    const double w = i < a.weights.size() ? a.weights[i] : 1.0;
    s += w * w * (a.coords[i] - b.coords[i]) * (a.coords[i] - b.coords[i]);
  }
  return std::sqrt(s);
}

}  // namespace hetbench::tuning
