// The lexical pieces of the Matrix Market reader: blanks, case-blind words, integers, and
// tokens quoted for error messages. Header-only: the reader's inner loop inlines them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

namespace hetbench::mm {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// `b` is lower case.
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != b[i]) return false;
  return true;
}

inline bool is_lower(std::string_view a) {
  for (char c : a)
    if (lower(c) != c) return false;
  return true;
}

// A token for an error message: quoted, shortened, with unprintable bytes escaped.
inline std::string quote(std::string_view t) {
  std::string s = "'";
  for (size_t i = 0; i < t.size() && i < 32; ++i) {
    auto c = static_cast<unsigned char>(t[i]);
    if (c >= 0x20 && c < 0x7f) {
      s += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      s += hex;
    }
  }
  if (t.size() > 32) s += "...";
  return s + "'";
}

enum class IntParse { ok, not_integer, overflow };

// [+-]digits, any length; the value saturates (overflow) rather than wrapping.
inline IntParse parse_int(std::string_view t, int64_t& v) {
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) neg = t[i++] == '-';
  if (i == t.size()) return IntParse::not_integer;
  bool overflow = false;
  int64_t acc = 0;
  for (; i < t.size(); ++i) {
    unsigned d = static_cast<unsigned char>(t[i]) - unsigned{'0'};
    if (d > 9) return IntParse::not_integer;
    if (acc > (std::numeric_limits<int64_t>::max() - d) / 10) overflow = true;
    else acc = acc * 10 + d;
  }
  v = neg ? -acc : acc;
  return overflow ? IntParse::overflow : IntParse::ok;
}

// An integer written as a real with a zero fraction and no exponent ("2.", "-7.000"):
// fast_matrix_market reads its integer part, which is then the whole value.
inline bool is_integral_real(std::string_view t) {
  const auto dot = t.find('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  int64_t unused;
  if (parse_int(t.substr(0, dot), unused) == IntParse::not_integer) return false;
  for (char c : t.substr(dot + 1))
    if (c != '0') return false;
  return true;
}

}  // namespace hetbench::mm
