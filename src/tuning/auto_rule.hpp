// The built-in rule of `--variant auto` for problems the tuning database knows nothing
// near: the op's preferred variant among those the device has, and the op's parameter
// values for it (Op::preferred_variants and Op::param_rules, hetbench/op_rules.hpp;
// docs/tuning-db.md). The rules are the op's; this only asks.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/op.hpp"

namespace hetbench::tuning {

struct RuleChoice {
  std::string name;    // a variant name among `available`
  std::string reason;  // "rule: max/mean row length 53 > 8"
};

// The first of the op's preferred variants that is among `available` (names of the op's
// own variants that run on the device in the precision); where none is, the first of
// `available` by name, so the choice is stable. nullopt when `available` is empty.
std::optional<RuleChoice> rule_choice(const Op& op, const nlohmann::json& features,
                                      const std::vector<std::string>& available);

}  // namespace hetbench::tuning
