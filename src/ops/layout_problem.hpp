// A problem over records placed by a data layout (src/ops/layout.hpp): kernel variants
// put its generated struct definitions and accessors after the API prelude, host variants
// read its fields through field_view(layout.operand(...), ...).
#pragma once

#include <string>

#include "hetbench/op.hpp"
#include "ops/layout.hpp"

namespace hetbench {

class LayoutProblem : public Problem {
 public:
  Layout layout;
  std::string source_prelude;  // layout_accessors(layout, fields)
};

}  // namespace hetbench
