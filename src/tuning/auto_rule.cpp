#include "tuning/auto_rule.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace hetbench::tuning {

std::optional<RuleChoice> rule_choice(const Op& op, const nlohmann::json& features,
                                      const std::vector<std::string>& available) {
  if (available.empty()) return std::nullopt;
  const VariantPreference pref = op.preferred_variants(features);
  for (const auto& p : pref.names)
    if (std::find(available.begin(), available.end(), p) != available.end()) return RuleChoice{p, pref.why};
  auto first = *std::min_element(available.begin(), available.end());
  return RuleChoice{first, pref.why.empty() ? "rule: the first own variant by name"
                                            : pref.why + "; none of its choices here, first own variant by name"};
}

}  // namespace hetbench::tuning
