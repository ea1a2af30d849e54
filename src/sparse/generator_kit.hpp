// What the matrix generators (sparse/generators.cpp) share: the seeded random stream,
// the spec's key=value parameters and the row-by-row CSR builder.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "sparse/csr.hpp"
#include "util/random.hpp"
#include "hetbench/error.hpp"

namespace hetbench::generator_detail {

constexpr int64_t max32 = std::numeric_limits<int32_t>::max();

// The next value of a splitmix64 stream.
inline uint64_t splitmix64_next(uint64_t& state) {
  const uint64_t z = splitmix64(state);
  state += 0x9e3779b97f4a7c15ULL;
  return z;
}

// xoshiro256**: fast enough that 10M entries take well under a second.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& w : s_) w = splitmix64_next(seed);
  }
  uint64_t next() {
    uint64_t result = rotl(s_[1] * 5, 7) * 9;
    uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Lemire's multiply-shift; the bias of at most n/2^64 does not matter here.
  uint64_t below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }           // [0,1)
  double open_unit() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }  // (0,1]
  // A random nonzero value in [-1,-2^-53] or [2^-53,1].
  double value() {
    uint64_t x = next();
    double magnitude = static_cast<double>((x >> 11) + 1) * 0x1.0p-53;
    return (x & 1) ? -magnitude : magnitude;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// The key=value part of a spec; every accessor marks its key as known.
class Params {
 public:
  Params(std::string spec, std::string_view kv) : spec_(std::move(spec)) {
    while (!kv.empty()) {
      size_t comma = kv.find(',');
      std::string_view item = kv.substr(0, comma);
      kv = comma == std::string_view::npos ? std::string_view{} : kv.substr(comma + 1);
      size_t eq = item.find('=');
      if (item.empty() || eq == std::string_view::npos || eq == 0)
        fail("'" + std::string(item) + "' is not key=value");
      std::string key(item.substr(0, eq));
      if (!values_.emplace(key, std::string(item.substr(eq + 1))).second) fail("key '" + key + "' is given twice");
    }
  }

  [[noreturn]] void fail(const std::string& why) const { throw Error(spec_ + ": " + why); }

  int64_t integer(const std::string& key, std::optional<int64_t> fallback, int64_t lo, int64_t hi) {
    auto text = lookup(key, fallback.has_value());
    if (!text) return *fallback;
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc{} || ptr != text->data() + text->size() || text->empty())
      fail("key '" + key + "' must be an integer, not '" + *text + "'");
    if (v < lo || v > hi)
      fail("key '" + key + "' must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", not " + *text);
    return v;
  }

  // In [lo, hi], or in (lo, hi] when open_lo.
  double real(const std::string& key, std::optional<double> fallback, double lo, double hi, bool open_lo) {
    auto text = lookup(key, fallback.has_value());
    if (!text) return *fallback;
    double v = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc{} || ptr != text->data() + text->size() || text->empty() || !std::isfinite(v))
      fail("key '" + key + "' must be a number, not '" + *text + "'");
    if (v < lo || v > hi || (open_lo && v == lo))
      fail("key '" + key + "' must be in " + (open_lo ? "(" : "[") + fmt(lo) + ", " + fmt(hi) + "], not " + *text);
    return v;
  }

  // Call after reading every key: anything left is a typo.
  void done(const char* known) const {
    for (const auto& [key, value] : values_)
      if (!used_.count(key)) fail("unknown key '" + key + "' (known: " + known + ")");
  }

 private:
  static std::string fmt(double v) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  }

  std::optional<std::string> lookup(const std::string& key, bool optional) {
    used_.insert(key);
    auto it = values_.find(key);
    if (it != values_.end()) return it->second;
    if (!optional) fail("missing key '" + key + "'");
    return std::nullopt;
  }

  std::string spec_;
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

// Rows are appended in order; `close_row` records where each row ends.
struct Builder {
  CsrMatrix m;
  Builder(int64_t rows, int64_t cols, int64_t nnz_hint) {
    m.rows = rows;
    m.cols = cols;
    m.rowptr.reserve(rows + 1);
    m.rowptr.push_back(0);
    m.colidx.reserve(nnz_hint);
    m.values.reserve(nnz_hint);
  }
  void add(int64_t j, double v) {
    m.colidx.push_back(static_cast<int32_t>(j));
    m.values.push_back(v);
  }
  void close_row(const Params& p) {
    if (m.colidx.size() > static_cast<size_t>(max32))
      p.fail("the matrix would have more than 2^31-1 entries, which int32 CSR cannot index");
    m.rowptr.push_back(static_cast<int32_t>(m.colidx.size()));
  }
};

}  // namespace hetbench::generator_detail
