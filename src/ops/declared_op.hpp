// Ops declared by data: a kernel whose mathematics hetbench does not know (a Kernel Tuner
// T1 problem brought in by `kernel import-t1`) still needs an op for its operands. The
// declaration lists them, each vector with its element type, length, access and fill and
// each scalar with its value, and the problem's fixed size; docs/metadata-format.md
// ("op_declaration") says the format and docs/interop.md what such an op can check.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "hetbench/op.hpp"

namespace hetbench {

// Registers the op `name` that `decl` declares, or returns the one registered before under
// that name by an identical declaration (a variant's metadata loaded again, or two
// variants of one T1 problem). Throws Error naming `origin` and the key on a bad
// declaration, and when `name` is a built-in op or was declared differently.
const Op& declare_op(const std::string& name, const nlohmann::ordered_json& decl, const std::string& origin);

}  // namespace hetbench
