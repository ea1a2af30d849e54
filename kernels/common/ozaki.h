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

// Scheme II (Ozaki, Uchino, Imamura), arranged so that a GPU thread spends a few
// binary64 operations per element and modulus, no integer division and no branch that
// depends on the data's values in practice (docs/ozaki.md, "Kernels").
#if defined(__CUDACC__)
#define OZ_UNROLL _Pragma("unroll")
#else
#define OZ_UNROLL
#endif
constexpr int kMaxModuli = 20;
constexpr int kMaxWords = 4;
constexpr int kWordBits = 40;               // see CrtConst
constexpr double kMagic = 0x1.8p52;         // x + kMagic: the integer x in the low bits (|x| < 2^51)

// The low 32 bits of a binary64's encoding: for y = kMagic + x (x an integer, |x| < 2^31) that is x.
HB_HD int low_int(double y) {
#if defined(__CUDA_ARCH__)
  return __double2loint(y);
#else
  unsigned long long u;
  memcpy(&u, &y, 8);
  return static_cast<int>(static_cast<unsigned>(u));
#endif
}
// An int32 as binary64, exactly: on the GPU through the magic constant (two fast
// operations instead of a conversion, which runs at a quarter of the FP64 rate).
HB_HD double int_to_double(int x) {
#if defined(__CUDA_ARCH__)
  return rn::sub(__hiloint2double(0x43380000, x ^ static_cast<int>(0x80000000u)), 0x1.8p52 + 0x1p31);
#else
  return static_cast<double>(x);
#endif
}

// x·2^(P-e) = x·s1·s2 with s1 = 2^⌊(P-e)/2⌋ and s2 = 2^(P-e-⌊(P-e)/2⌋): both powers are
// normal for any e of a normal binary64, and the two products are exact (or, when the
// result is below 1, rounded to something that truncates to zero as ldexp's would).
HB_HD void crt_scales(int e, int P, double& s1, double& s2) {
  const int sh = P - e, h = sh / 2;
  s1 = ldexp(1.0, h);
  s2 = ldexp(1.0, sh - h);
}
HB_HD double crt_integer(double x, double s1, double s2) { return trunc(rn::mul(rn::mul(x, s1), s2)); }

// The balanced residue of the integer-valued v (|v| < 2^51) modulo md <= 256, minv =
// RN(1/md), vm = v + kMagic (exact): q = RN(v·minv) is the nearest integer to v/md (the
// error of minv moves v·minv by < 2^-9 <= 1/(2 md)), so r = v - q·md is balanced
// ([-(m-1)/2, (m-1)/2]; for 256, ±128 of which both are the byte 0x80 = -128) and
// kMagic + r = fma(-q, md, vm) is exact. 3 binary64 operations.
HB_HD int crt_residue_narrow(double v, double vm, double md, double minv) {
  const double q = rn::sub(rn::fma(v, minv, kMagic), kMagic);
  return low_int(rn::fma(-q, md, vm));
}
// Any integer-valued v below 2^78 (P <= 78 for 20 moduli): a first exact reduction
// below 2^27 where v >= 2^58, then q may be one off the nearest (|r| < m) and the
// result is made balanced.
HB_HD int crt_residue_wide(double v, double md, double minv, int m) {
  if (fabs(v) >= 0x1p58) v = rn::fma(-rint(rn::mul(v, minv)), md, v);
  const double q = rn::sub(rn::fma(v, minv, kMagic), kMagic);
  const int t = low_int(rn::add(rn::fma(-q, md, v), kMagic));
  return t >= (m + 1) / 2 ? t - m : t < -(m / 2) ? t + m : t;
}
// As an int8 this is the balanced residue of v (the tests check it against fmod's).
HB_HD int crt_residue(double v, double md, double minv, int m) {
  return fabs(v) < 0x1p51 ? crt_residue_narrow(v, rn::add(v, kMagic), md, minv) : crt_residue_wide(v, md, minv, m);
}

// An operand of the CUDA split kernels as logical rows of length k (A's rows, B's
// columns) in its stored form: element (r, p) at r * sr + p * sp, one stride being 1;
// kind 0 binary32, 1 binary64 (also DF @d64), 2 DF interleaved, 3 DF two planes of count.
struct Operand {
  const void* src;
  int kind;
  unsigned long long count;
  long long sr, sp;
  int rows, k;
};

// The constants of the reconstruction X = sum_l r_l c_l - Q M (the CRT as a sum, O(L)
// operations per element where Garner's mixed radix needs O(L^2) modular steps):
// c_l = (M/m_l)·((M/m_l)^-1 mod m_l) < M, cut into W words of kWordBits bits on one
// grid counted from the top bit B of M: word w holds bits [B-40(w+1), B-40w) of c_l
// (scaled, so c_l = sum_w c[w][l] exactly). With |r_l| <= 129 and L <= 20, every
// S_w = sum_l r_l c[w][l] is below 20·129·2^40 < 2^52 units of its grid (exact in
// binary64), and so is X_w = S_w - Q M[w] (|Q| <= 20·129 + 1). src/ops/gemm_scheme.hpp
// (crt_constants) computes them.
struct CrtConst {
  int L, W;
  int mod[kMaxModuli];
  double m[kMaxModuli], minv[kMaxModuli];
  double c[kMaxWords][kMaxModuli];
  double M[kMaxWords];
  double Minv;  // RN(1/M)
};

// X (|X| <= M/4) from the int32 GEMM results R[l] (any representatives of X mod m_l), as
// a double-double: r_l = R_l - m_l RN(R_l/m_l) (exact, |r_l| <= 129), S_w summed
// exactly, Q = RN(S_0/M) (S/M is within 1/4 of an integer and S_0/M within 2^-27 of
// S/M), X_w exact, X = sum_w X_w by TwoSum and accurate DW additions (rel. error < 3u^2).
template <int W>
HB_HD dw<double> crt_reconstruct(const int* R, const CrtConst& k) {
  double S[W];
  OZ_UNROLL
  for (int w = 0; w < W; ++w) S[w] = 0;
  OZ_UNROLL
  for (int l = 0; l < kMaxModuli; ++l) {
    if (l < k.L) {
      const double x = int_to_double(R[l]);
      const double q = rn::sub(rn::fma(x, k.minv[l], kMagic), kMagic);
      const double r = rn::fma(-q, k.m[l], x);
      OZ_UNROLL
      for (int w = 0; w < W; ++w) S[w] = rn::fma(r, k.c[w][l], S[w]);
    }
  }
  const double Q = rn::sub(rn::fma(S[0], k.Minv, kMagic), kMagic);
  if constexpr (W == 1) {
    return dw<double>{rn::fma(-Q, k.M[0], S[0]), 0.0};
  } else {
    dw<double> x = two_sum(rn::fma(-Q, k.M[0], S[0]), rn::fma(-Q, k.M[1], S[1]));
    OZ_UNROLL
    for (int w = 2; w < W; ++w) x = add_accurate(x, dw<double>{rn::fma(-Q, k.M[w], S[w]), 0.0});
    return x;
  }
}
HB_HD dw<double> crt_reconstruct(const int* R, const CrtConst& k) {
  switch (k.W) {
    case 1: return crt_reconstruct<1>(R, k);
    case 2: return crt_reconstruct<2>(R, k);
    case 3: return crt_reconstruct<3>(R, k);
    default: return crt_reconstruct<4>(R, k);
  }
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
