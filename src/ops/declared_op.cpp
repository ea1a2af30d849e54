// An op from a declaration (ops/declared_op.hpp): operands and a fixed problem, no
// mathematics. Without a reference there is no error bound to check, so validation checks
// what the declaration itself promises: every element of a write-only vector is written
// (the engine poisons them first) and no output holds a NaN; the bound says so in words,
// and the note carries a digest of the outputs so that configurations can be compared.
#include "ops/declared_op.hpp"

#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

using ojson = nlohmann::ordered_json;

struct Operand {
  OperandSpec spec;
  std::size_t count = 0;        // vectors: elements
  bool random = false;          // vectors read by the kernel: seeded random, else `value`
  double value = 0;             // scalars, and constant fills
  std::size_t elem_bytes = 0;   // vectors
};

class DeclaredOp final : public Op {
 public:
  DeclaredOp(std::string name, std::string text, std::string description, Precision prec,
             std::vector<std::pair<std::string, std::int64_t>> problem, std::vector<Operand> operands)
      : name_(std::move(name)), text_(std::move(text)), description_(std::move(description)), prec_(prec),
        problem_(std::move(problem)), operands_(std::move(operands)) {
    for (const auto& o : operands_) sig_.operands.push_back(o.spec);
    for (const auto& [k, v] : problem_) sig_.axes.push_back(Axis::dimension(k, "the declared problem's size"));
  }
  const std::string& text() const { return text_; }

  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  std::vector<Precision> precisions() const override { return {prec_}; }
  const OpSignature& signature() const override { return sig_; }
  std::string fixed_size() const override {
    std::string s;
    for (const auto& [k, v] : problem_) s += (s.empty() ? "" : "x") + std::to_string(v);
    return s;
  }
  // The operands' lengths are numbers, so the op has one problem: its size, or nothing.
  std::vector<Sizes> parse_sizes(const std::string& token) const override {
    if (token != fixed_size())
      throw Error(fmt::format("op {} has one problem, of size {} (its operands' lengths are fixed by its declaration), "
                              "not '{}': give --size {} or no --size",
                              name_, fixed_size(), token, fixed_size()));
    Sizes s;
    for (const auto& [k, v] : problem_) s[k] = v;
    return {s};
  }
  double device_bytes(const Sizes&, Precision) const override {
    double b = 0;
    for (const auto& o : operands_) b += static_cast<double>(o.count) * static_cast<double>(o.elem_bytes);
    return b;
  }
  Validation validate(const Problem& prob, const Outputs& out) const override {
    Validation v;
    std::uint64_t digest = 0xcbf29ce484222325ull;  // FNV-1a over the outputs in order
    for (const auto& o : operands_) {
      if (!o.spec.array || o.spec.access == Access::In) continue;
      const Bytes& b = output(out, o.spec.name);
      for (unsigned char c : b) digest = (digest ^ c) * 0x100000001b3ull;
      v.checked += o.count;
      for (std::size_t i = 0; i < o.count; ++i) {
        const unsigned char* e = b.data() + i * o.elem_bytes;
        bool poison = o.spec.access == Access::Out;
        for (std::size_t k = 0; poison && k < o.elem_bytes; ++k) poison = e[k] == 0xFF;
        if (poison) ++v.unwritten;
        else if (o.spec.elem == Elem::Real && is_nan(e, prob.prec)) ++v.nan;
      }
    }
    v.bound = "none: a declared op has no reference; checked that every write-only element is written and no output "
              "is NaN";
    v.note = fmt::format("outputs fnv1a64 {:016x}", digest);
    return v;
  }

 protected:
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    std::uint64_t stream = 1;
    double bytes = 0;
    for (const auto& o : operands_) {
      if (!o.spec.array) {
        prob->scalars.push_back({o.spec.name, o.spec.elem == Elem::Int, o.value});
        continue;
      }
      ArrayOperand a{o.spec.name, o.spec.elem == Elem::Int, o.spec.access, o.count, o.elem_bytes, {}};
      bytes += static_cast<double>(a.bytes()) * (o.spec.access == Access::InOut ? 2 : 1);
      if (o.spec.access != Access::Out) {
        a.host.resize(a.bytes());
        fill(a, o, seed, stream++);
      }
      prob->arrays.push_back(std::move(a));
    }
    prob->flops = 0;
    // The operands once each: all a declaration knows of the traffic.
    prob->min_bytes = bytes;
    return prob;
  }

 private:
  std::string name_, text_, description_;
  Precision prec_;
  std::vector<std::pair<std::string, std::int64_t>> problem_;
  std::vector<Operand> operands_;
  OpSignature sig_;

  static bool is_nan(const unsigned char* e, Precision p) {
    if (p == Precision::D) {
      double d;
      std::memcpy(&d, e, sizeof d);
      return std::isnan(d);
    }
    float f;
    std::memcpy(&f, e, sizeof f);
    return std::isnan(f);
  }
  void fill(ArrayOperand& a, const Operand& o, std::uint64_t seed, std::uint64_t stream) const {
    auto each = [&]<class T>() {
      T* x = reinterpret_cast<T*>(a.host.data());
      if (o.random) fill_random(x, o.count, seed, stream);
      else std::fill(x, x + o.count, static_cast<T>(o.value));
    };
    if (o.spec.elem == Elem::Int) each.template operator()<std::int32_t>();
    else if (prec_ == Precision::D) each.template operator()<double>();
    else each.template operator()<float>();
  }
};

// The declaration read strictly: every key known, every value in range.
class DeclReader {
 public:
  explicit DeclReader(std::string origin) : origin_(std::move(origin)) {}
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw Error(fmt::format("{}: op_declaration{}{}: {}", origin_, key.empty() ? "" : ".", key, msg));
  }
  std::int64_t integer(const ojson& j, const std::string& key, std::int64_t lo, std::int64_t hi) const {
    if (!j.is_number_integer()) fail(key, "expected an integer");
    const auto v = j.get<std::int64_t>();
    if (v < lo || v > hi) fail(key, fmt::format("{} is outside [{}, {}]", v, lo, hi));
    return v;
  }
  std::string str(const ojson& j, const std::string& key) const {
    if (!j.is_string()) fail(key, "expected a string");
    return j.get<std::string>();
  }

 private:
  std::string origin_;
};

bool identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::unique_ptr<DeclaredOp> parse_declaration(const std::string& name, const ojson& decl, const std::string& origin) {
  const DeclReader r(origin);
  if (!decl.is_object()) r.fail("", "expected an object");
  static const std::set<std::string> keys{"description", "problem", "operands"};
  for (auto it = decl.begin(); it != decl.end(); ++it)
    if (!keys.count(it.key())) r.fail(it.key(), "unknown key");
  if (!decl.contains("problem") || !decl["problem"].is_object() || decl["problem"].empty() || decl["problem"].size() > 3)
    r.fail("problem", "expected an object of one to three sizes, e.g. {\"x\": 4096, \"y\": 4096}");
  std::vector<std::pair<std::string, std::int64_t>> problem;
  for (auto it = decl["problem"].begin(); it != decl["problem"].end(); ++it) {
    if (!identifier(it.key())) r.fail("problem." + it.key(), "expected a name of letters, digits and _");
    problem.emplace_back(it.key(), r.integer(it.value(), "problem." + it.key(), 1, std::int64_t{1} << 40));
  }
  if (!decl.contains("operands") || !decl["operands"].is_array() || decl["operands"].empty())
    r.fail("operands", "expected a non-empty array");

  // The vectors' real type is the problem's precision; one type for all of them.
  std::string real;
  std::vector<Operand> ops;
  std::set<std::string> names;
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  for (std::size_t i = 0; i < decl["operands"].size(); ++i) {
    const ojson& o = decl["operands"][i];
    const std::string key = fmt::format("operands[{}]", i);
    if (!o.is_object()) r.fail(key, "expected an object");
    static const std::set<std::string> okeys{"name", "type", "count", "value", "access", "fill"};
    for (auto it = o.begin(); it != o.end(); ++it)
      if (!okeys.count(it.key())) r.fail(key + "." + it.key(), "unknown key");
    Operand op;
    op.spec.name = o.contains("name") ? r.str(o["name"], key + ".name") : "";
    if (!identifier(op.spec.name)) r.fail(key + ".name", "expected a name of letters, digits and _");
    if (!names.insert(op.spec.name).second) r.fail(key + ".name", fmt::format("'{}' is named twice", op.spec.name));
    const std::string type = o.contains("type") ? r.str(o["type"], key + ".type") : "";
    op.spec.array = o.contains("count");
    const bool is_real = type == "float" || type == "double";
    const std::set<std::string> ints = op.spec.array ? std::set<std::string>{"int32"}
                                                     : std::set<std::string>{"int32", "uint32", "int64", "uint64"};
    if (!is_real && !ints.count(type))
      r.fail(key + ".type", fmt::format("'{}': expected float, double or {}", type,
                                        op.spec.array ? "int32 for a vector" : "int32, uint32, int64 or uint64"));
    if (is_real) {
      if (!real.empty() && real != type)
        r.fail(key + ".type", fmt::format("'{}' after '{}': one real type per op (it is the problem's precision)", type, real));
      real = type;
    }
    op.spec.elem = is_real ? Elem::Real : Elem::Int;
    if (op.spec.array) {
      if (o.contains("value")) r.fail(key + ".value", "a vector (count) has a fill, not a value");
      op.count = static_cast<std::size_t>(r.integer(o["count"], key + ".count", 1, std::int64_t{1} << 40));
      op.elem_bytes = is_real ? (type == "double" ? 8 : 4) : 4;
      const std::string access = o.contains("access") ? r.str(o["access"], key + ".access") : "";
      if (access == "in") op.spec.access = Access::In;
      else if (access == "out") op.spec.access = Access::Out;
      else if (access == "inout") op.spec.access = Access::InOut;
      else r.fail(key + ".access", fmt::format("'{}': expected in, out or inout", access));
      if (op.spec.access == Access::Out) {
        if (o.contains("fill")) r.fail(key + ".fill", "a write-only vector starts poisoned, not filled");
      } else {
        if (!o.contains("fill")) r.fail(key + ".fill", "missing: \"random\" or a number");
        const ojson& f = o["fill"];
        if (f.is_string() && f.get<std::string>() == "random") {
          if (!is_real) r.fail(key + ".fill", "random integers would make no valid indices: give a number");
          op.random = true;
        } else if (f.is_number() && std::isfinite(f.get<double>())) {
          op.value = f.get<double>();
        } else {
          r.fail(key + ".fill", "expected \"random\" or a finite number");
        }
      }
    } else {
      for (const char* k : {"access", "fill"})
        if (o.contains(k)) r.fail(key + "." + k, "a scalar has a value only");
      if (!o.contains("value")) r.fail(key, "expected \"count\" (a vector) or \"value\" (a scalar)");
      if (is_real) {
        if (!o["value"].is_number() || !std::isfinite(o["value"].get<double>())) r.fail(key + ".value", "expected a finite number");
        op.value = o["value"].get<double>();
      } else {
        const std::int64_t lo = type[0] == 'u' ? 0 : type == "int32" ? INT32_MIN : -kExact;
        const std::int64_t hi = type == "int32" ? INT32_MAX : type == "uint32" ? UINT32_MAX : kExact;
        op.value = static_cast<double>(r.integer(o["value"], key + ".value", lo, hi));
      }
    }
    ops.push_back(op);
  }
  if (std::none_of(ops.begin(), ops.end(), [](const Operand& o) { return o.spec.array && o.spec.access != Access::In; }))
    r.fail("operands", "no vector is written (access out or inout): nothing to check or time");
  const Precision prec = real == "double" ? Precision::D : real == "float" ? Precision::S : Precision::I32;
  const std::string description =
      decl.contains("description") ? r.str(decl["description"], "description") : "declared op (" + origin + ")";
  return std::make_unique<DeclaredOp>(name, decl.dump(), description, prec, std::move(problem), std::move(ops));
}

}  // namespace

const Op& declare_op(const std::string& name, const ojson& decl, const std::string& origin) {
  auto op = parse_declaration(name, decl, origin);
  if (const Op* had = op_named(name)) {
    const auto* d = dynamic_cast<const DeclaredOp*>(had);
    if (!d) throw Error(fmt::format("{}: op_declaration: '{}' is a built-in op: declare the kernel's op under another name", origin, name));
    if (d->text() != op->text())
      throw Error(fmt::format("{}: op_declaration: op '{}' was declared differently by another variant's metadata", origin, name));
    return *had;
  }
  const Op& out = *op;
  register_op(std::move(op));
  return out;
}

}  // namespace hetbench
