// hetbench expression -> Python text with the same value, built-ins only (and numpy's
// log2): Kernel Tuner compiles restriction strings in a module that does not import math,
// so ceil, floor and roundup become floor divisions, exact floors also for floats.
#include <cmath>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "interop/python_expr.hpp"

namespace hetbench {

namespace {

struct Py {
  std::string text;
  bool boolean = false;  // a comparison or logic: True/False rather than a number
};

std::string number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 0x1p62) return std::to_string(static_cast<long long>(v));
  return fmt::format("{:.17g}", v);
}

// hetbench logic works on numbers (non-zero is true) and yields 0 or 1; Python's `and`
// yields an operand, so non-boolean operands are compared with 0 first.
std::string truth(const Py& p) { return p.boolean ? p.text : fmt::format("({} != 0)", p.text); }

Py translate(const Expr::Node& n, const std::string& text, const PyBinding& b) {
  using K = Expr::Node::Kind;
  auto kid = [&](std::size_t i) { return translate(*n.kids[i], text, b); };
  switch (n.kind) {
    case K::Num: return {number(n.value)};
    case K::Var:
      if (b.constants)
        if (auto it = b.constants->find(n.name); it != b.constants->end()) return {number(it->second)};
      if (b.lets)
        for (const auto& [name, e] : *b.lets)
          if (name == n.name) return {"(" + strip_outer_parens(translate(*e.root(), e.text(), b).text) + ")"};
      return {n.name};
    case K::Unary:
      if (n.name == "-") return {fmt::format("(-{})", kid(0).text)};
      return {fmt::format("(not {})", truth(kid(0))), true};
    case K::Ternary: return {fmt::format("({} if {} else {})", kid(1).text, truth(kid(0)), kid(2).text)};
    case K::Binary: {
      const std::string& o = n.name;
      const Py a = kid(0), b = kid(1);
      if (o == "&&") return {fmt::format("({} and {})", truth(a), truth(b)), true};
      if (o == "||") return {fmt::format("({} or {})", truth(a), truth(b)), true};
      if (o == "^") return {fmt::format("({} ** {})", a.text, b.text)};
      const bool cmp = o == "<" || o == "<=" || o == ">" || o == ">=" || o == "==" || o == "!=";
      return {fmt::format("({} {} {})", a.text, o, b.text), cmp};
    }
    case K::Call: {
      const std::string& f = n.name;
      const std::string a = kid(0).text;
      if (f == "ceil") return {fmt::format("(-((-{}) // 1))", a)};
      if (f == "floor") return {fmt::format("({} // 1)", a)};
      // hetbench rounds halves away from zero (std::round), Python's round() to even.
      if (f == "round") return {fmt::format("(({0} + 0.5) // 1 if {0} >= 0 else -((0.5 - {0}) // 1))", a)};
      if (f == "abs") return {fmt::format("abs({})", a)};
      if (f == "sqrt") return {fmt::format("({} ** 0.5)", a)};
      // Without bit operations, which hetbench lacks, so that it translates back.
      if (f == "is_pow2") return {fmt::format("({} in [2 ** i for i in range(63)])", a), true};
      // numpy is imported where Kernel Tuner compiles restrictions (kernel_tuner/util.py).
      if (f == "log2") return {fmt::format("np.log2({})", a)};
      const std::string b = kid(1).text;
      if (f == "min" || f == "max" || f == "pow") return {fmt::format("{}({}, {})", f, a, b)};
      if (f == "div") return {fmt::format("({} // {})", a, b)};
      if (f == "roundup") return {fmt::format("((-((-{0}) // {1})) * {1})", a, b)};
      break;
    }
  }
  throw Error(fmt::format("expression '{}': '{}' has no Python translation", text, n.name));
}

}  // namespace

std::string strip_outer_parens(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return text;
  int depth = 0;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0) return text;  // the first '(' closes before the end: "(a) + (b)"
  }
  return text.substr(1, text.size() - 2);
}

std::string to_python(const Expr& e, const PyBinding& b) {
  if (!e.root()) throw Error("empty expression");
  return strip_outer_parens(translate(*e.root(), e.text(), b).text);
}

}  // namespace hetbench
