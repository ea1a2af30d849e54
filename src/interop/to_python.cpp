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

Py translate(const Expr::Node& n, const std::string& text) {
  using K = Expr::Node::Kind;
  auto kid = [&](std::size_t i) { return translate(*n.kids[i], text); };
  switch (n.kind) {
    case K::Num: return {number(n.value)};
    case K::Var: return {n.name};
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

// Splits at the commas outside parentheses and brackets.
std::vector<std::string> split_top(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (cur.find_first_not_of(" \t\n") != std::string::npos) out.push_back(cur);
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n\r") - b + 1);
}

bool wrapped(const std::string& s, const std::string& open, char close) {
  return s.size() > open.size() && s.compare(0, open.size(), open) == 0 && s.back() == close;
}

long long integer(const std::string& py, const Vars& vars, const std::string& whole) {
  try {
    return eval_int(Expr(from_python(py)), vars);
  } catch (const Error& e) {
    throw Error(fmt::format("parameter values '{}': {}", whole, e.what()));
  }
}

std::vector<long long> range_values(const std::string& args, const std::string& whole) {
  auto parts = split_top(args);
  if (parts.empty() || parts.size() > 3) throw Error(fmt::format("parameter values '{}': range() takes 1 to 3 arguments", whole));
  std::vector<long long> a;
  for (const auto& p : parts) a.push_back(integer(p, {}, whole));
  const long long start = a.size() == 1 ? 0 : a[0], stop = a.size() == 1 ? a[0] : a[1], step = a.size() == 3 ? a[2] : 1;
  if (step == 0) throw Error(fmt::format("parameter values '{}': range() step is 0", whole));
  std::vector<long long> out;
  for (long long v = start; step > 0 ? v < stop : v > stop; v += step) out.push_back(v);
  return out;
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

std::string to_python(const Expr& e) {
  if (!e.root()) throw Error("empty expression");
  return strip_outer_parens(translate(*e.root(), e.text()).text);
}

std::vector<long long> python_int_list(const std::string& text) {
  std::string s = trim(text);
  if (wrapped(s, "list(", ')')) s = trim(s.substr(5, s.size() - 6));
  if (wrapped(s, "range(", ')')) return range_values(s.substr(6, s.size() - 7), text);
  if (!wrapped(s, "[", ']') && !wrapped(s, "(", ')'))
    throw Error(fmt::format("parameter values '{}': expected a list such as [1, 2, 4], range(...) or "
                            "[EXPR for NAME in range(...)]", text));
  const std::string body = s.substr(1, s.size() - 2);
  // [EXPR for NAME in range(...)]
  if (auto f = body.find(" for "); f != std::string::npos) {
    const std::string rest = trim(body.substr(f + 5));
    const auto in = rest.find(" in ");
    if (in == std::string::npos) throw Error(fmt::format("parameter values '{}': expected 'for NAME in range(...)'", text));
    const std::string var = trim(rest.substr(0, in)), iter = trim(rest.substr(in + 4));
    if (!wrapped(iter, "range(", ')'))
      throw Error(fmt::format("parameter values '{}': a comprehension must run over range(...)", text));
    std::vector<long long> out;
    for (long long i : range_values(iter.substr(6, iter.size() - 7), text))
      out.push_back(integer(body.substr(0, f), Vars{{var, static_cast<double>(i)}}, text));
    return out;
  }
  std::vector<long long> out;
  for (const auto& item : split_top(body)) out.push_back(integer(item, {}, text));
  return out;
}

}  // namespace hetbench
