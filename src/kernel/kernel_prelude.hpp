// Text prepended to every kernel source: the precision's types and small helpers, so
// that one source serves S and D, or DF and DD (two words per element).
#pragma once

#include <string>

#include "hetbench/precision.hpp"

namespace hetbench {

std::string kernel_prelude(const std::string& language, Precision p);

}  // namespace hetbench
