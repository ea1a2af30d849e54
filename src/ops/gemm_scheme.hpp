// Splitting schemes for GEMM on low-precision products (docs/ozaki.md), shared by the
// host variants (the exact emulation, src/backends/host/host_gemm_ozaki.cpp), the CUDA
// variants (src/backends/cuda/ozaki_variants.cpp) and the op's validation
// (src/ops/gemm_scheme.cpp), which derives each scheme's a-priori bound from what the
// variant reports in the output "scheme".
//  fixed: Ozaki scheme I (Ozaki, Ogita, Oishi, Rump) on integer slices. Row i of A is
//         scaled by 2^-e_i (max_p |a_ip| < 2^e_i) and cut into `slices` signed integer
//         slices of `bits` bits each (truncation); B by columns alike. The slice products
//         are exact in the accumulator; the pairs with t + u <= slices + 1 are summed in binary64.
//  crt:   Ozaki scheme II (Ozaki, Uchino, Imamura): A and B scaled to integers of `bits`
//         bits (truncation), products modulo `slices` coprime moduli <= 256 as INT8 GEMMs,
//         the Chinese remainder theorem (Garner's mixed radix, Horner in double-double).
//  split: 3xTF32 / BF16x9 (as CUTLASS): x = x_0 + x_1 + ... by repeated rounding to a
//         `bits`-bit significand; the pairs t + u <= slices - 1 (or all with `full`)
//         as GEMMs accumulated in binary32 (unit roundoff acc_u) into C.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hetbench/dfdd.hpp"
#include "hetbench/error.hpp"
#include "kernels/common/ozaki.h"

namespace hetbench::gemm_scheme {

enum class Kind { fixed, crt, split };

struct Scheme {
  Kind kind = Kind::fixed;
  int slices = 0;     // slices (fixed, split) or moduli (crt)
  int bits = 0;       // bits per slice (fixed), integer bits of A and B (crt), significand bits (split)
  bool full = false;  // split: all slices x slices pairs
  double acc_u = 0;   // split: unit roundoff of the binary32 accumulation (2^-24 RN; 2^-23 tensor cores)
  std::string label;  // e.g. "ozaki2 int8 moduli=14"

  // Low-precision GEMMs the scheme runs.
  int gemms() const {
    if (kind == Kind::crt) return slices;
    if (kind == Kind::split && full) return slices * slices;
    return kind == Kind::split ? slices * (slices + 1) / 2 : slices * (slices + 1) / 2;
  }
  std::string encode() const {
    return fmt::format("{} {} {} {} {:a} {}", static_cast<int>(kind), slices, bits, full ? 1 : 0, acc_u, label);
  }
  static Scheme decode(const Bytes& b) {
    const std::string s(b.begin(), b.end());
    Scheme r;
    int kind = 0, full = 0, used = 0;
    if (std::sscanf(s.c_str(), "%d %d %d %d %la %n", &kind, &r.slices, &r.bits, &full, &r.acc_u, &used) < 5)
      throw Error("internal: malformed GEMM scheme report '" + s + "'");
    r.kind = static_cast<Kind>(kind);
    r.full = full != 0;
    r.label = s.substr(static_cast<std::size_t>(used));
    return r;
  }
};

inline int ceil_log2(long long k) {
  int c = 0;
  while ((1LL << c) < k) ++c;
  return c;
}

// Scheme I: bits per slice so that k products of two slices sum exactly in an
// accumulator of acc_bits bits (binary32: 24, int32: 31), at most the input format's.
inline int fixed_bits(int format_bits, int acc_bits, long long k) {
  const int b = std::min(format_bits, (acc_bits - ceil_log2(k)) / 2);
  if (b < 1) throw PointError(fmt::format("k = {} is too large for exact slice products in {} bits", k, acc_bits));
  return b;
}

// Scheme II: the first `count` pairwise coprime moduli <= 256, largest first; symmetric
// residues of each fit INT8 ([-128, 127] for 256, [-(m-1)/2, (m-1)/2] for odd m).
inline std::vector<int> moduli(int count) {
  std::vector<int> m;
  for (int c = 256; c > 1 && static_cast<int>(m.size()) < count; --c) {
    bool coprime = true;
    for (int x : m) coprime = coprime && std::gcd(x, c) == 1;
    if (coprime) m.push_back(c);
  }
  if (static_cast<int>(m.size()) < count) throw PointError(fmt::format("at most {} moduli <= 256", m.size()));
  return m;
}

// Scheme II: integer bits P of the scaled A and B, so that |(A'B')_ij| <= k 2^(2P) <= M/4
// (M the product of the moduli), which Garner's balanced mixed radix recovers exactly.
inline int crt_bits(const std::vector<int>& m, long long k) {
  double log2M = 0;
  for (int x : m) log2M += std::log2(static_cast<double>(x));
  const int P = (static_cast<int>(std::floor(log2M)) - 2 - ceil_log2(k)) / 2;
  if (P < 1) throw PointError(fmt::format("{} moduli are too few for k = {}", m.size(), k));
  return P;
}

// Scheme II's reconstruction constants (kernels/common/ozaki.h, CrtConst) for the moduli
// m, from exact multi-word integers (M < 2^160): 32-bit limbs, least significant first.
inline oz::CrtConst crt_constants(const std::vector<int>& m) {
  using Big = std::vector<std::uint32_t>;
  const auto mul = [](Big a, std::uint32_t x) {
    std::uint64_t carry = 0;
    for (auto& d : a) {
      const std::uint64_t t = static_cast<std::uint64_t>(d) * x + carry;
      d = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry) a.push_back(static_cast<std::uint32_t>(carry));
    return a;
  };
  const auto mod = [](const Big& a, std::uint32_t x) {
    std::uint64_t r = 0;
    for (std::size_t i = a.size(); i-- > 0;) r = ((r << 32) | a[i]) % x;
    return static_cast<std::uint32_t>(r);
  };
  const auto bit = [](const Big& a, int b) { return b / 32 < static_cast<int>(a.size()) ? (a[b / 32] >> (b % 32)) & 1u : 0u; };
  // Bits [lo, hi) of a (lo clamped at 0), as the binary64 value they have in a.
  const auto word = [&](const Big& a, int lo, int hi) {
    std::uint64_t v = 0;
    for (int b = hi - 1; b >= std::max(lo, 0); --b) v = (v << 1) | bit(a, b);
    return std::ldexp(static_cast<double>(v), std::max(lo, 0));
  };
  const int L = static_cast<int>(m.size());
  if (L < 1 || L > oz::kMaxModuli) throw Error(fmt::format("internal: {} moduli (1..{})", L, oz::kMaxModuli));
  oz::CrtConst k{};
  k.L = L;
  Big M{1};
  for (int x : m) M = mul(M, static_cast<std::uint32_t>(x));
  int B = 32 * static_cast<int>(M.size());
  while (B > 0 && !bit(M, B - 1)) --B;
  k.W = (B + oz::kWordBits - 1) / oz::kWordBits;
  if (k.W > oz::kMaxWords) throw Error("internal: the moduli's product needs more than 4 words");
  for (int l = 0; l < L; ++l) {
    Big Ml{1};
    for (int j = 0; j < L; ++j)
      if (j != l) Ml = mul(Ml, static_cast<std::uint32_t>(m[j]));
    const std::uint32_t a = mod(Ml, static_cast<std::uint32_t>(m[l]));
    std::uint32_t y = 1;
    while ((static_cast<std::uint64_t>(a) * y) % static_cast<std::uint32_t>(m[l]) != 1) ++y;
    const Big c = mul(Ml, y);
    for (int w = 0; w < k.W; ++w) k.c[w][l] = word(c, B - oz::kWordBits * (w + 1), B - oz::kWordBits * w);
    k.mod[l] = m[l];
    k.m[l] = m[l];
    k.minv[l] = 1.0 / m[l];
  }
  double Md = 0;
  for (int w = 0; w < k.W; ++w) Md += (k.M[w] = word(M, B - oz::kWordBits * (w + 1), B - oz::kWordBits * w));
  k.Minv = 1.0 / Md;
  return k;
}

// Round a binary32 to `bits` significand bits, to nearest even (TF32: 11, BF16: 8), as
// the tensor cores' input formats hold them; finite inputs, no overflow.
inline float round_bits(float x, int bits) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  const int drop = 24 - bits;
  u += ((1u << (drop - 1)) - 1) + ((u >> drop) & 1u);
  u &= ~((1u << drop) - 1);
  std::memcpy(&x, &u, 4);
  return x;
}

}  // namespace hetbench::gemm_scheme
