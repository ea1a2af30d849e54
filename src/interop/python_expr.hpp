// hetbench expressions <-> the Python expressions of the T1 format (Kernel Tuner's
// restriction and launch-size strings), so that constraints and launch sizes cross over
// with their meaning. docs/interop.md lists what maps to what and what cannot.
#pragma once

#include <string>
#include <vector>

#include "hetbench/expr.hpp"

namespace hetbench {

// Names a translation replaces: constants (a problem's sizes, a device's limits) become
// numbers, lets become their own expressions, in parentheses; other names stay names.
struct PyBinding {
  const Vars* constants = nullptr;
  const std::vector<std::pair<std::string, Expr>>* lets = nullptr;
};

// Python text of a hetbench expression, using built-ins and np.log2 only (Kernel Tuner
// evaluates restrictions in a module that imports numpy as np, not math).
std::string to_python(const Expr& e, const PyBinding& b = {});

// hetbench text of a Python expression (the subset T1 files use: arithmetic, // and **,
// comparisons, chained comparisons, and/or/not, `x in [..]`, `a if c else b`, min max abs
// pow int bool and math.ceil/floor/sqrt/log2). Throws Error naming the expression and
// what cannot be translated.
std::string from_python(const std::string& py);

// `text` without one pair of parentheses that encloses all of it (both translators
// parenthesize every operation; the outermost pair says nothing).
std::string strip_outer_parens(const std::string& text);

// The integers of a T1 "Values" string: a list literal, range(...), list(range(...)) or a
// comprehension [EXPR for NAME in range(...)]. Throws Error for anything else.
std::vector<long long> python_int_list(const std::string& py);

}  // namespace hetbench
