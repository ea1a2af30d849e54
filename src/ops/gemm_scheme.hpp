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

#include "hetbench/error.hpp"

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
  static Scheme decode(const std::vector<unsigned char>& b) {
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

// Scheme II's Garner digits: r[l] the residues of X modulo m[l] (any representative),
// v[l] the balanced mixed-radix digits, X = v_0 + m_0 (v_1 + m_1 (v_2 + ...)).
// inv[l * L + j] = m_j^-1 mod m_l (j < l).
inline std::vector<int> garner_inverses(const std::vector<int>& m) {
  const std::size_t L = m.size();
  std::vector<int> inv(L * L, 0);
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t j = 0; j < l; ++j)
      for (int x = 1; x < m[l]; ++x)
        if ((static_cast<long long>(m[j] % m[l]) * x) % m[l] == 1) inv[l * L + j] = x;
  return inv;
}

}  // namespace hetbench::gemm_scheme
