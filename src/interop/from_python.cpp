// Python expression text -> hetbench expression text: a recursive-descent parser over the
// subset of Python that T1 constraint and size strings use, following Python's grammar
// (precedence: if-else < or < and < not < comparisons < + - < * / // % < unary < **).
// Every result is fully parenthesized, so hetbench's own precedence never matters.
#include <cctype>
#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "interop/python_expr.hpp"

namespace hetbench {

namespace {

struct Tok {
  enum Kind { Num, Name, Op, End } kind;
  std::string text;
  std::size_t pos = 0;  // offset in the source
};

std::vector<Tok> tokenize(const std::string& s, const std::function<void(const std::string&)>& fail) {
  static const char* ops[] = {"**", "//", "<=", ">=", "==", "!=", "<<", ">>", "<", ">", "+", "-", "*",
                              "/",  "%",  "(",  ")",  "[",  "]",  ",",  ".",  "&", "|", "^", "~"};
  std::vector<Tok> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (std::isdigit(c) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      std::size_t b = i;
      if (s.compare(i, 2, "0x") == 0 || s.compare(i, 2, "0X") == 0) {
        i += 2;
        while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i]))) ++i;
        out.push_back({Tok::Num, std::to_string(std::stoll(s.substr(b, i - b), nullptr, 16)), b});
        continue;
      }
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '_')) ++i;
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      }
      std::string num = s.substr(b, i - b);
      std::erase(num, '_');
      out.push_back({Tok::Num, num, b});
    } else if (std::isalpha(c) || c == '_') {
      std::size_t b = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      out.push_back({Tok::Name, s.substr(b, i - b), b});
    } else {
      bool found = false;
      for (const char* op : ops)
        if (s.compare(i, std::char_traits<char>::length(op), op) == 0) {
          out.push_back({Tok::Op, op, i});
          i += std::char_traits<char>::length(op);
          found = true;
          break;
        }
      if (!found) fail(fmt::format("unexpected '{}'", s.substr(i, 1)));
    }
  }
  out.push_back({Tok::End, "", s.size()});
  return out;
}

// A parsed value: an expression, or a list/tuple display (only allowed right of `in`).
struct Val {
  std::string text;
  bool is_list = false;
  std::vector<std::string> items;
  bool powers_of_two = false;  // the list 2**0 .. 2**62: to_python's spelling of is_pow2
};

class PyParser {
 public:
  explicit PyParser(const std::string& src) : src_(src) {
    toks_ = tokenize(src, [this](const std::string& w) { fail(w); });
  }

  std::string parse() {
    Val v = test();
    if (peek().kind != Tok::End) fail(fmt::format("unexpected '{}'", peek().text));
    return scalar(v);
  }

 private:
  const std::string& src_;
  std::vector<Tok> toks_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("Python expression '{}' cannot be translated: {}", src_, what));
  }
  const Tok& peek(std::size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  bool is(const char* text, std::size_t ahead = 0) const {
    const Tok& t = peek(ahead);
    return (t.kind == Tok::Op || t.kind == Tok::Name) && t.text == text;
  }
  bool eat(const char* text) {
    if (!is(text)) return false;
    ++pos_;
    return true;
  }
  void expect(const char* text) {
    if (!eat(text)) fail(fmt::format("expected '{}' before '{}'", text, peek().text));
  }
  std::string scalar(const Val& v) const {
    if (v.is_list) fail("a list is only understood right of 'in' or 'not in'");
    return v.text;
  }
  static Val expr(std::string t) { return Val{std::move(t), false, {}}; }

  Val test() {
    Val a = or_test();
    if (eat("if")) {
      Val c = or_test();
      expect("else");
      Val b = test();
      return expr(fmt::format("({} ? {} : {})", scalar(c), scalar(a), scalar(b)));
    }
    return a;
  }
  Val or_test() {
    Val l = and_test();
    while (eat("or")) l = expr(fmt::format("({} || {})", scalar(l), scalar(and_test())));
    return l;
  }
  Val and_test() {
    Val l = not_test();
    while (eat("and")) l = expr(fmt::format("({} && {})", scalar(l), scalar(not_test())));
    return l;
  }
  Val not_test() {
    if (eat("not")) return expr(fmt::format("(!{})", scalar(not_test())));
    return comparison();
  }
  // a < b < c is (a < b) && (b < c), as in Python.
  Val comparison() {
    Val first = arith();
    std::string result, left = first.is_list ? std::string() : first.text;
    bool any = false;
    for (;;) {
      std::string op;
      for (const char* c : {"<=", ">=", "==", "!=", "<", ">"})
        if (is(c)) op = c;
      bool in = false, negate = false;
      if (!op.empty()) {
        ++pos_;
      } else if (is("in")) {
        ++pos_;
        in = true;
      } else if (is("not") && is("in", 1)) {
        pos_ += 2;
        in = negate = true;
      } else if (is("is")) {
        fail("'is' has no hetbench meaning");
      } else {
        break;
      }
      if (first.is_list && !any) fail("a list is only understood right of 'in' or 'not in'");
      Val right = arith();
      std::string term;
      if (in) {
        if (!right.is_list) fail("'in' needs a list or tuple of values on its right");
        if (right.powers_of_two) {
          term = negate ? fmt::format("(!is_pow2({}))", left) : fmt::format("is_pow2({})", left);
        } else if (right.items.empty()) {
          term = negate ? "1" : "0";
        } else {
          for (const auto& item : right.items) term += (term.empty() ? "" : " || ") + fmt::format("{} == {}", left, item);
          term = negate ? fmt::format("(!({}))", term) : fmt::format("({})", term);
        }
      } else {
        term = fmt::format("({} {} {})", left, op, scalar(right));
      }
      result = any ? fmt::format("({} && {})", result, term) : term;
      any = true;
      if (!right.is_list) left = right.text;
    }
    return any ? expr(result) : first;
  }
  Val arith() {
    Val l = term();
    if (is("&") || is("|") || is("^") || is("<<") || is(">>"))
      fail(fmt::format("the bitwise operator '{}' has no hetbench equivalent", peek().text));
    for (;;) {
      if (eat("+")) l = expr(fmt::format("({} + {})", scalar(l), scalar(term())));
      else if (eat("-")) l = expr(fmt::format("({} - {})", scalar(l), scalar(term())));
      else return l;
    }
  }
  Val term() {
    Val l = factor();
    for (;;) {
      if (eat("*")) l = expr(fmt::format("({} * {})", scalar(l), scalar(factor())));
      else if (eat("//")) l = expr(fmt::format("div({}, {})", scalar(l), scalar(factor())));
      else if (eat("/")) l = expr(fmt::format("({} / {})", scalar(l), scalar(factor())));
      else if (eat("%")) l = expr(fmt::format("({} % {})", scalar(l), scalar(factor())));
      else return l;
    }
  }
  Val factor() {
    if (eat("-")) return expr(fmt::format("(-{})", scalar(factor())));
    if (eat("+")) return factor();
    if (is("~")) fail("the bitwise operator '~' has no hetbench equivalent");
    return power();
  }
  Val power() {
    Val base = call_or_atom();
    if (eat("**")) return expr(fmt::format("({} ^ {})", scalar(base), scalar(factor())));
    return base;
  }
  std::vector<std::string> call_args(const std::string& f) {
    std::vector<std::string> args;
    if (!eat(")")) {
      do args.push_back(scalar(test()));
      while (eat(","));
      expect(")");
    }
    if (args.empty()) fail(fmt::format("{}() without arguments", f));
    return args;
  }
  Val call_or_atom() {
    if (peek().kind == Tok::Name && (is(".", 1) || is("(", 1))) {
      std::string f = peek().text;
      ++pos_;
      if (eat(".")) {
        if (f != "math" && f != "np" && f != "numpy") fail(fmt::format("unknown module '{}'", f));
        if (peek().kind != Tok::Name) fail("expected a function name after '.'");
        f = peek().text;
        ++pos_;
      }
      expect("(");
      return expr(call(f, call_args(f)));
    }
    return atom();
  }
  std::string call(const std::string& f, const std::vector<std::string>& a) {
    auto need = [&](std::size_t n) {
      if (a.size() != n) fail(fmt::format("{}() takes {} argument(s) here, not {}", f, n, a.size()));
    };
    if (f == "min" || f == "max") {
      if (a.size() < 2) fail(fmt::format("{}() over one iterable has no hetbench equivalent", f));
      std::string out = a[0];
      for (std::size_t i = 1; i < a.size(); ++i) out = fmt::format("{}({}, {})", f, out, a[i]);
      return out;
    }
    if (f == "ceil" || f == "floor" || f == "sqrt" || f == "log2" || f == "abs") {
      need(1);
      return fmt::format("{}({})", f, a[0]);
    }
    if (f == "pow") {
      need(2);
      return fmt::format("pow({}, {})", a[0], a[1]);
    }
    if (f == "int") {  // truncation toward zero
      need(1);
      return fmt::format("({0} < 0 ? ceil({0}) : floor({0}))", a[0]);
    }
    if (f == "bool") {
      need(1);
      return fmt::format("({} != 0)", a[0]);
    }
    if (f == "round") fail("Python's round() rounds halves to even, hetbench's round does not");
    fail(fmt::format("unknown function '{}'", f));
  }
  Val atom() {
    const Tok t = peek();
    if (t.kind == Tok::Num) {
      ++pos_;
      return expr(t.text);
    }
    if (t.kind == Tok::Name) {
      static const std::set<std::string> keywords{"and", "or", "not", "in", "is", "if", "else", "for",
                                                  "lambda", "None", "def", "return", "import"};
      if (t.text == "True" || t.text == "False") {
        ++pos_;
        return expr(t.text == "True" ? "1" : "0");
      }
      if (keywords.count(t.text)) fail(fmt::format("unexpected '{}'", t.text));
      ++pos_;
      return expr(t.text);
    }
    if (eat("(")) {
      Val v = test();
      if (is(",")) {  // a tuple display
        Val list{"", true, {scalar(v)}};
        while (eat(",") && !is(")")) list.items.push_back(scalar(test()));
        expect(")");
        return list;
      }
      expect(")");
      return v;  // every operation the parser writes is parenthesized already
    }
    if (is("[")) return list_display();
    if (t.kind == Tok::End) fail("unexpected end");
    fail(fmt::format("unexpected '{}'", t.text));
  }
  // [a, b, c], or a comprehension over range(...), whose values are constants.
  Val list_display() {
    const std::size_t open = pos_;
    std::size_t close = open;
    bool comprehension = false;
    for (int depth = 0; close < toks_.size() && toks_[close].kind != Tok::End; ++close) {
      const Tok& t = toks_[close];
      if (t.kind == Tok::Op && (t.text == "[" || t.text == "(")) ++depth;
      if (t.kind == Tok::Op && (t.text == "]" || t.text == ")") && --depth == 0) break;
      if (t.kind == Tok::Name && t.text == "for" && depth == 1) comprehension = true;
    }
    if (comprehension) {
      if (close >= toks_.size() || toks_[close].kind == Tok::End) fail("expected ']'");
      std::vector<long long> values;
      try {
        values = python_int_list(src_.substr(toks_[open].pos, toks_[close].pos + 1 - toks_[open].pos));
      } catch (const Error& e) {
        fail(e.what());
      }
      pos_ = close + 1;
      Val list{"", true, {}};
      bool pow2 = values.size() == 63;
      for (std::size_t i = 0; i < values.size(); ++i) {
        list.items.push_back(std::to_string(values[i]));
        pow2 = pow2 && values[i] == (1LL << i);
      }
      list.powers_of_two = pow2;
      return list;
    }
    expect("[");
    {
      Val list{"", true, {}};
      if (!eat("]")) {
        do {
          if (is("]")) break;
          list.items.push_back(scalar(test()));
        } while (eat(","));
        expect("]");
      }
      return list;
    }
  }
};

}  // namespace

std::string from_python(const std::string& py) {
  std::string text = strip_outer_parens(PyParser(py).parse());
  try {
    Expr check(text);
  } catch (const Error& e) {
    throw Error(fmt::format("Python expression '{}' cannot be translated: {}", py, e.what()));
  }
  return text;
}

}  // namespace hetbench
