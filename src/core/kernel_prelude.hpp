// Text prepended to every kernel source: the precision's types and small helpers, so
// that one source serves S and D (and later DF, DD).
#pragma once

#include <string>

#include "hetbench/precision.hpp"

namespace hetbench {

std::string kernel_prelude(const std::string& language, Precision p);

}  // namespace hetbench
