// Integer lists as users write them: "1000,2^20,1e6", "a:b:step", "a:b:*2".
#pragma once

#include <string>
#include <vector>

namespace hetbench {

// Each comma-separated item is an integer expression or a range a:b:step (additive)
// or a:b:*f (geometric). Throws Error naming `what` and the faulty item.
std::vector<long long> parse_int_list(const std::string& spec, const std::string& what);

}  // namespace hetbench
