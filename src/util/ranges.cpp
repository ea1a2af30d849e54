#include "util/ranges.hpp"

#include <cmath>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/expr.hpp"

namespace hetbench {

namespace {

constexpr std::size_t kMaxItems = 100000;

long long int_value(const std::string& text, const std::string& what, const std::string& item) {
  try {
    Expr e(text);
    if (!e.names().empty())
      throw Error(fmt::format("unknown name '{}'", *e.names().begin()));
    return eval_int(e, {});
  } catch (const Error& err) {
    throw Error(fmt::format("malformed {} '{}': {}", what, item, err.what()));
  }
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (;;) {
    auto e = s.find(sep, b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return out;
}

}  // namespace

std::vector<long long> parse_int_list(const std::string& spec, const std::string& what) {
  std::vector<long long> out;
  if (spec.find_first_not_of(" \t") == std::string::npos) throw Error(fmt::format("empty {} list", what));
  for (const auto& item : split(spec, ',')) {
    if (item.find_first_not_of(" \t") == std::string::npos)
      throw Error(fmt::format("malformed {} list '{}': empty item", what, spec));
    auto parts = split(item, ':');
    if (parts.size() == 1) {
      out.push_back(int_value(item, what, item));
    } else if (parts.size() == 3) {
      long long a = int_value(parts[0], what, item), b = int_value(parts[1], what, item);
      if (a > b) throw Error(fmt::format("malformed {} range '{}': start {} is above end {}", what, item, a, b));
      std::string step = parts[2];
      step.erase(0, step.find_first_not_of(" \t"));
      if (!step.empty() && step[0] == '*') {
        long long f = int_value(step.substr(1), what, item);
        if (f < 2) throw Error(fmt::format("malformed {} range '{}': the factor must be 2 or more", what, item));
        if (a <= 0) throw Error(fmt::format("malformed {} range '{}': a geometric range must start above 0", what, item));
        for (long long v = a; v <= b; v *= f) {
          out.push_back(v);
          if (v > b / f) break;
        }
      } else {
        if (!step.empty() && step[0] == '+') step = step.substr(1);
        long long s = int_value(step, what, item);
        if (s <= 0) throw Error(fmt::format("malformed {} range '{}': the step must be positive", what, item));
        // The span as unsigned: b - a overflows long long when the ends lie far apart
        // (-2^62:2^62), and stepping past b overflows it when b is near the top.
        const unsigned long long count = (static_cast<unsigned long long>(b) - static_cast<unsigned long long>(a)) /
                                             static_cast<unsigned long long>(s) + 1;
        if (count > kMaxItems)
          throw Error(fmt::format("{} range '{}' has more than {} values", what, item, kMaxItems));
        for (unsigned long long i = 0; i < count; ++i)  // a + i*s <= b, though i*s alone may not fit
          out.push_back(static_cast<long long>(static_cast<unsigned long long>(a) + i * static_cast<unsigned long long>(s)));
      }
    } else {
      throw Error(fmt::format("malformed {} '{}': expected a value or start:end:step", what, item));
    }
    if (out.size() > kMaxItems) throw Error(fmt::format("{} list '{}' has more than {} values", what, spec, kMaxItems));
  }
  return out;
}

}  // namespace hetbench
