// Arithmetic expressions over named values, used by variant metadata for launch
// geometry, scratch sizes and constraints (e.g. "ceil(n / (WPT*WG)) * WG").
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace hetbench {

using Vars = std::map<std::string, double, std::less<>>;

// Grammar: numbers (1024, 1e6, 0x40), names, + - * / % ^ (power), comparisons,
// && || !, c ? a : b, parentheses and the functions ceil floor round abs sqrt log2
// min max pow div (floor division) roundup (ceil(a/b)*b) is_pow2.
// "/" is real division: integers come back through ceil/floor/div.
class Expr {
 public:
  Expr() = default;
  // Throws hetbench::Error naming the text and the position of the fault.
  explicit Expr(std::string text);

  double eval(const Vars& vars) const;  // throws Error on an unknown name
  const std::string& text() const { return text_; }
  const std::set<std::string>& names() const { return names_; }
  bool empty() const { return !root_; }

  // The parsed tree, for translators into other expression languages (src/interop).
  struct Node {
    enum Kind { Num, Var, Unary, Binary, Ternary, Call } kind;
    double value = 0;
    std::string name;  // variable, function or operator
    std::vector<std::shared_ptr<const Node>> kids;
  };
  const Node* root() const { return root_.get(); }

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
  std::set<std::string> names_;
};

// Evaluates to an integer; throws Error if the value is not integral or out of range.
long long eval_int(const Expr& e, const Vars& vars);

}  // namespace hetbench
