// T1 "Values" strings -> integers: the Python spellings of a parameter's domain that
// Kernel Tuner's own T1 files use (a list, range(...), a comprehension over range).
#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "interop/python_expr.hpp"

namespace hetbench {

namespace {

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
