// Shared pieces of the memory-access ops (copy_strided, gather, pchase): "@key=list"
// size suffixes, seeded permutations, the sector model of raw bytes and the exact check
// of a copied or permuted vector.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "ops/vector_common.hpp"

namespace hetbench::access {

// A size token "BASE@word@key=list...": BASE and the suffixes in order, each as (key,
// value) where a bare word has an empty value. Throws on an empty suffix.
inline std::pair<std::string, std::vector<std::pair<std::string, std::string>>> split_suffixes(
    const std::string& op, const std::string& token) {
  std::vector<std::pair<std::string, std::string>> out;
  auto at = token.find('@');
  const std::string base = token.substr(0, at);
  while (at != std::string::npos) {
    const auto next = token.find('@', at + 1);
    std::string suf = token.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    at = next;
    if (suf.empty()) throw Error(fmt::format("malformed {} size '{}': an empty @ suffix", op, token));
    const auto eq = suf.find('=');
    if (eq == std::string::npos) out.emplace_back(suf, "");
    else out.emplace_back(suf.substr(0, eq), suf.substr(eq + 1));
  }
  return {base, out};
}

// Every value of `list` (Op::parse_sizes' integer grammar) inside [lo, hi], else an error
// naming the key and the value.
inline std::vector<long long> bounded_list(const std::string& op, const std::string& key, const std::string& list,
                                           long long lo, long long hi) {
  auto vals = parse_int_list(list, key);
  for (auto v : vals)
    if (v < lo || v > hi) throw Error(fmt::format("{} {} = {} is out of range: {} needs {} <= {} <= {}", op, key, v, op, lo, key, hi));
  return vals;
}

// Each Sizes of `in` once per value of `key` (the cross product of a token's lists), at
// most kMaxProblems of them: a token of long lists would otherwise build millions.
constexpr std::size_t kMaxProblems = 100000;
inline std::vector<Sizes> times(const std::vector<Sizes>& in, const std::string& key, const std::vector<long long>& vals) {
  if (in.size() * vals.size() > kMaxProblems)
    throw Error(fmt::format("{} sizes times {} values of {} are more than {} problems", in.size(), vals.size(), key,
                            kMaxProblems));
  std::vector<Sizes> out;
  for (const auto& s : in)
    for (auto v : vals) {
      Sizes t = s;
      t[key] = v;
      out.push_back(t);
    }
  return out;
}

// A uniformly random permutation of 0..n-1 (Fisher-Yates), or with `cyclic` a random
// single cycle through all n (Sattolo's algorithm: j < i instead of j <= i), from a
// generator seeded by the experiment's seed and a stream of the op's.
inline std::vector<std::uint32_t> permutation(std::size_t n, std::uint64_t seed, std::uint64_t stream, bool cyclic) {
  std::vector<std::uint32_t> p(n);
  std::iota(p.begin(), p.end(), 0u);
  std::mt19937_64 rng(splitmix64(seed ^ splitmix64(stream)));
  for (std::size_t i = n; i > 1; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, cyclic ? i - 2 : i - 1);
    std::swap(p[i - 1], p[pick(rng)]);
  }
  return p;
}

// The raw-bytes model (docs/memory-system.md): a warp of 32 consecutive work-items asks
// for the distinct g-byte granules its addresses fall in; elem_at(i) is element i's
// index in the array read or written through an index or stride. Returns bytes.
constexpr std::size_t kWarp = 32;
template <class At>
double warp_granule_bytes(std::size_t n, std::size_t elem, std::size_t g, At elem_at) {
  double granules = 0;
  std::vector<std::uint64_t> seen;
  seen.reserve(kWarp);
  for (std::size_t w = 0; w < n; w += kWarp) {
    seen.clear();
    for (std::size_t i = w; i < std::min(n, w + kWarp); ++i) seen.push_back(elem_at(i) * elem / g);
    if (!std::is_sorted(seen.begin(), seen.end())) std::sort(seen.begin(), seen.end());
    granules += static_cast<double>(std::unique(seen.begin(), seen.end()) - seen.begin());
  }
  return granules * static_cast<double>(g);
}

// Bytes of n contiguous elements read or written in granules of g (a warp's run of
// consecutive elements; the allocation starts on a granule).
inline double contiguous_bytes(std::size_t n, std::size_t elem, std::size_t g) {
  return static_cast<double>((n * elem + g - 1) / g * g);
}

// The exact check of an output that copies elements: y[i] must be bitwise src(i).
template <class T, class Src>
Validation check_copied(const T* y, std::size_t n, Src src, const char* bound) {
  auto v = check_elements(y, n, [&](std::size_t i) { return static_cast<long double>(src(i)); },
                          [](std::size_t) { return 0.0L; });
  v.bound = bound;
  return v;
}

}  // namespace hetbench::access
