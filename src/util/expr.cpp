#include "hetbench/expr.hpp"

#include <cctype>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench {

namespace {

using NodeP = std::shared_ptr<const Expr::Node>;

class Parser {
 public:
  Parser(const std::string& s, std::set<std::string>& names) : s_(s), names_(names) {}

  NodeP parse() {
    auto n = ternary();
    skip();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return n;
  }

 private:
  const std::string& s_;
  std::set<std::string>& names_;
  std::size_t pos_ = 0;
  static constexpr int kMaxDepth = 200;
  int depth_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("in expression '{}' at position {}: {}", s_, pos_ + 1, what));
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view tok) {
    skip();
    if (s_.compare(pos_, tok.size(), tok) == 0) {
      pos_ += tok.size();
      return true;
    }
    return false;
  }
  static NodeP make(Expr::Node::Kind k, std::string name, std::vector<NodeP> kids) {
    auto n = std::make_shared<Expr::Node>();
    n->kind = k;
    n->name = std::move(name);
    n->kids = std::move(kids);
    return n;
  }

  NodeP ternary() {
    auto c = logical_or();
    if (eat("?")) {
      auto a = ternary();
      if (!eat(":")) fail("expected ':'");
      auto b = ternary();
      return make(Expr::Node::Ternary, "?", {c, a, b});
    }
    return c;
  }
  NodeP logical_or() {
    auto l = logical_and();
    while (eat("||")) l = make(Expr::Node::Binary, "||", {l, logical_and()});
    return l;
  }
  NodeP logical_and() {
    auto l = comparison();
    while (eat("&&")) l = make(Expr::Node::Binary, "&&", {l, comparison()});
    return l;
  }
  NodeP comparison() {
    auto l = additive();
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"}) {
      if (eat(op)) return make(Expr::Node::Binary, op, {l, additive()});
    }
    return l;
  }
  NodeP additive() {
    auto l = multiplicative();
    for (;;) {
      if (eat("+")) l = make(Expr::Node::Binary, "+", {l, multiplicative()});
      else if (eat("-")) l = make(Expr::Node::Binary, "-", {l, multiplicative()});
      else return l;
    }
  }
  NodeP multiplicative() {
    auto l = unary();
    for (;;) {
      if (eat("*")) l = make(Expr::Node::Binary, "*", {l, unary()});
      else if (eat("/")) l = make(Expr::Node::Binary, "/", {l, unary()});
      else if (eat("%")) l = make(Expr::Node::Binary, "%", {l, unary()});
      else return l;
    }
  }
  // Unary minus binds looser than ^, as in mathematics: -2^2 = -4, 2^-1 = 0.5.
  // Every recursion of the grammar (parentheses, arguments, unary operators, ^, ?:)
  // passes through here, so the depth is bounded here: a long run of '(' or '-' would
  // otherwise overflow the stack.
  NodeP unary() {
    struct Depth {
      int& d;
      ~Depth() { --d; }
    } depth{++depth_};
    if (depth_ > kMaxDepth) fail(fmt::format("nested more than {} deep", kMaxDepth));
    if (eat("-")) return make(Expr::Node::Unary, "-", {unary()});
    if (eat("+")) return unary();
    skip();
    if (pos_ < s_.size() && s_[pos_] == '!' && s_.compare(pos_, 2, "!=") != 0) {
      ++pos_;
      return make(Expr::Node::Unary, "!", {unary()});
    }
    return power();
  }
  NodeP power() {
    auto l = primary();
    if (eat("^")) return make(Expr::Node::Binary, "^", {l, unary()});
    return l;
  }
  NodeP primary() {
    skip();
    if (pos_ >= s_.size()) fail("unexpected end");
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      auto n = ternary();
      if (!eat(")")) fail("expected ')'");
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* begin = s_.c_str() + pos_;
      char* end = nullptr;
      double v = std::strtod(begin, &end);
      if (end == begin) fail("bad number");
      pos_ += static_cast<std::size_t>(end - begin);
      auto n = std::make_shared<Expr::Node>();
      n->kind = Expr::Node::Num;
      n->value = v;
      return n;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t b = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
        ++pos_;
      std::string id = s_.substr(b, pos_ - b);
      if (eat("(")) {
        std::vector<NodeP> args;
        if (!eat(")")) {
          do args.push_back(ternary());
          while (eat(","));
          if (!eat(")")) fail("expected ')' after the arguments of " + id);
        }
        check_call(id, args.size());
        return make(Expr::Node::Call, id, std::move(args));
      }
      names_.insert(id);
      return make(Expr::Node::Var, id, {});
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
  void check_call(const std::string& f, std::size_t n) const {
    static const std::map<std::string, std::size_t> arity{
        {"ceil", 1}, {"floor", 1}, {"round", 1}, {"abs", 1}, {"sqrt", 1}, {"log2", 1},
        {"is_pow2", 1}, {"min", 2}, {"max", 2}, {"pow", 2}, {"div", 2}, {"roundup", 2}};
    auto it = arity.find(f);
    if (it == arity.end()) fail("unknown function '" + f + "'");
    if (it->second != n) fail(fmt::format("{} takes {} argument(s), not {}", f, it->second, n));
  }
};

double eval_node(const Expr::Node& n, const Vars& v, const std::string& text) {
  using K = Expr::Node::Kind;
  auto arg = [&](int i) { return eval_node(*n.kids[i], v, text); };
  switch (n.kind) {
    case K::Num: return n.value;
    case K::Var: {
      auto it = v.find(n.name);
      if (it == v.end()) throw Error(fmt::format("in expression '{}': unknown name '{}'", text, n.name));
      return it->second;
    }
    case K::Unary: return n.name == "-" ? -arg(0) : (arg(0) == 0 ? 1.0 : 0.0);
    case K::Ternary: return arg(0) != 0 ? arg(1) : arg(2);
    case K::Binary: {
      const std::string& o = n.name;
      if (o == "&&") return (arg(0) != 0 && arg(1) != 0) ? 1 : 0;
      if (o == "||") return (arg(0) != 0 || arg(1) != 0) ? 1 : 0;
      double a = arg(0), b = arg(1);
      if (o == "+") return a + b;
      if (o == "-") return a - b;
      if (o == "*") return a * b;
      if (o == "/" || o == "%") {
        if (b == 0) throw Error(fmt::format("in expression '{}': division by zero", text));
        return o == "/" ? a / b : std::fmod(a, b);
      }
      if (o == "^") return std::pow(a, b);
      if (o == "<") return a < b;
      if (o == "<=") return a <= b;
      if (o == ">") return a > b;
      if (o == ">=") return a >= b;
      if (o == "==") return a == b;
      if (o == "!=") return a != b;
      break;
    }
    case K::Call: {
      const std::string& f = n.name;
      double a = arg(0);
      if (f == "ceil") return std::ceil(a);
      if (f == "floor") return std::floor(a);
      if (f == "round") return std::round(a);
      if (f == "abs") return std::fabs(a);
      if (f == "sqrt") return std::sqrt(a);
      if (f == "log2") return std::log2(a);
      if (f == "is_pow2") return a >= 1 && std::exp2(std::round(std::log2(a))) == a;
      double b = arg(1);
      if (f == "min") return std::min(a, b);
      if (f == "max") return std::max(a, b);
      if (f == "pow") return std::pow(a, b);
      if (b == 0) throw Error(fmt::format("in expression '{}': division by zero in {}", text, f));
      if (f == "div") return std::floor(a / b);
      if (f == "roundup") return std::ceil(a / b) * b;
      break;
    }
  }
  throw Error(fmt::format("in expression '{}': internal error", text));
}

}  // namespace

Expr::Expr(std::string text) : text_(std::move(text)) {
  std::set<std::string> names;
  Parser p(text_, names);
  root_ = p.parse();
  names_ = std::move(names);
}

double Expr::eval(const Vars& vars) const {
  if (!root_) throw Error("empty expression");
  return eval_node(*root_, vars, text_);
}

long long eval_int(const Expr& e, const Vars& vars) {
  double v = e.eval(vars);
  if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 0x1p62)
    throw Error(fmt::format("expression '{}' gives {}, which is not an integer", e.text(), v));
  return static_cast<long long>(v);
}

}  // namespace hetbench
