// The per-element arithmetic of the splitting schemes (src/ops/gemm_scheme.hpp,
// docs/ozaki.md), one source for the host emulation and the CUDA kernels, so that both
// slice, reduce and reconstruct bit for bit alike. Include after dfdd.h (C++ or CUDA).
#ifndef HETBENCH_OZAKI_H
#define HETBENCH_OZAKI_H

namespace hetbench {
namespace oz {

// The exponent e with max|x| < 2^e (0 for a zero row): frexp's.
HB_HD int exponent_above(double maxabs) {
  int e = 0;
  if (maxabs > 0) frexp(maxabs, &e);
  return e;
}

// Scheme I: slice t (0-based) of x·2^-e (|x·2^-e| < 1) in `bits`-bit signed integer
// slices by truncation; every step is exact (a power-of-two scaling, a truncation and
// the subtraction of the integer part).
HB_HD double fixed_slice(double x, int e, int bits, int t) {
  double y = ldexp(x, -e);
  double d = 0;
  for (int i = 0; i <= t; ++i) {
    y = ldexp(y, bits);
    d = trunc(y);
    y = rn::sub(y, d);
  }
  return d;
}

// Scheme II: x·2^(P-e) truncated to an integer (exact in binary64 at any P), and its
// balanced residue modulo m: [-128, 127] for 256, [-(m-1)/2, (m-1)/2] for odd m.
HB_HD double crt_integer(double x, int e, int P) { return trunc(ldexp(x, P - e)); }
HB_HD int balanced(long long r, int m) {
  r %= m;
  if (r >= (m + 1) / 2) r -= m;
  if (r < -(m / 2)) r += m;
  return static_cast<int>(r);
}
HB_HD int crt_residue(double xi, int m) { return balanced(static_cast<long long>(fmod(xi, static_cast<double>(m))), m); }

// Garner: the balanced mixed-radix digits of X from its residues r[l] (int32 GEMM
// results, any representative), X = v_0 + m_0 (v_1 + m_1 (...)), evaluated by Horner
// in double-double (each step: DW times word, JMP 2017 Alg. 9, and an accurate add).
// inv[l * L + j] = m_j^-1 mod m_l. L <= 20.
HB_HD dw<double> garner(const int* r, const int* m, const int* inv, int L) {
  int v[20] = {};
  for (int l = 0; l < L; ++l) {
    long long t = balanced(r[l], m[l]);
    for (int j = 0; j < l; ++j) t = balanced((t - v[j]) * inv[l * L + j], m[l]);
    v[l] = static_cast<int>(t);
  }
  dw<double> x{static_cast<double>(v[L - 1]), 0.0};
  for (int l = L - 2; l >= 0; --l)
    x = add_accurate(mul_word(x, static_cast<double>(m[l])), dw<double>{static_cast<double>(v[l]), 0.0});
  return x;
}

// Split (3xTF32, BF16x9): the t-th term of x = x_0 + x_1 + ... by repeated rounding of
// the binary32 remainder to `bits` significand bits (each remainder exact in binary32).
HB_HD float round_to_bits(float x, int bits) {
  unsigned u;
#if defined(__CUDA_ARCH__)
  u = __float_as_uint(x);
#else
  memcpy(&u, &x, 4);
#endif
  const int drop = 24 - bits;
  u += ((1u << (drop - 1)) - 1u) + ((u >> drop) & 1u);
  u &= ~((1u << drop) - 1u);
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  memcpy(&x, &u, 4);
  return x;
#endif
}
HB_HD float split_term(float x, int bits, int t) {
  float h = round_to_bits(x, bits);
  for (int i = 0; i < t; ++i) {
    x = rn::sub(x, h);
    h = round_to_bits(x, bits);
  }
  return h;
}

// DD -> DF: hi rounded, lo the rounded rest (relative error below 2^-47).
HB_HD dw<float> dd_to_df(dw<double> x) {
  const float hi = rn::to_float(x.hi);
  return dw<float>{hi, rn::to_float(rn::add(rn::sub(x.hi, static_cast<double>(hi)), x.lo))};
}

}  // namespace oz
}  // namespace hetbench

#endif
