// GEMM by splitting schemes on the host (the exact emulation of the CUDA variants):
// every scheme validates against its own bound and the precision's at its defaults, in
// every layout, odd sizes and (DF) every storage; with a wide exponent range the scheme's
// own bound still holds; too few moduli is recorded as missing the D bound; the
// @erange generator widens the exponents as it says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>

#include "hetbench/dfdd.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"
#include "ops/gemm_scheme.hpp"
#include "test_util.hpp"
#include "kernels/common/ozaki.h"

using namespace hetbench;
using testing::ContainsRegex;
using testing::HasSubstr;

namespace {

const char* const kSchemes[] = {"ozaki_int8", "ozaki_f16", "ozaki_bf16", "split_tf32", "split_bf16"};

std::vector<nlohmann::json> run(const std::string& variant, std::vector<Precision> precisions,
                                std::vector<std::string> sizes, std::map<std::string, std::string> params = {}) {
  RunSpec spec;
  spec.op = "gemm";
  spec.variants = {variant};
  spec.devices = "host";
  spec.precisions = std::move(precisions);
  spec.sizes = std::move(sizes);
  spec.params = std::move(params);
  spec.reps = 1;
  spec.warmup = 0;
  return test::run_points(spec);
}

std::vector<Precision> precisions_of(const std::string& name) {
  return name.rfind("split", 0) == 0 ? std::vector<Precision>{Precision::S}
                                     : std::vector<Precision>{Precision::D, Precision::DF};
}

TEST(GemmOzaki, EverySchemeMeetsItsBoundAndThePrecisionsAtDefaults) {
  for (const char* v : kSchemes) {
    std::vector<std::string> sizes = {"1x1x1@NN", "17x33x5@NT", "67x45x129@TN", "40x31x70@TT", "50x20x37@erange=10"};
    if (precisions_of(v)[0] == Precision::D) sizes.insert(sizes.end(), {"33x17x29@NT@soa", "29x33x17@TT@d64"});
    const auto recs = run(v, precisions_of(v), sizes);
    EXPECT_EQ(recs.size(), sizes.size() * precisions_of(v).size()) << v;
    for (const auto& r : recs) {
      EXPECT_EQ(r.value("status", ""), "ok") << test::describe(r) << " " << r["validation"].dump();
      const std::string note = r["validation"].value("note", "");
      EXPECT_THAT(note, ContainsRegex("scheme .*: max error/scheme bound [^(]*\\(met\\)")) << test::describe(r);
      EXPECT_THAT(note, ContainsRegex("GEMM bound [^(]*\\(met\\)")) << test::describe(r);
      EXPECT_THAT(r["validation"].value("bound", ""), HasSubstr("scheme's own bound")) << test::describe(r);
    }
  }
}

// The weak spot: exponents spread over 2^20 and 2^40 inside rows and columns. The
// scheme's own bound (which grows with the spread) must hold whatever the precision's does.
TEST(GemmOzaki, WideExponentRangesStayWithinTheSchemesBound) {
  for (const char* v : kSchemes) {
    const auto recs = run(v, precisions_of(v), {"45x37x61@erange=20", "31x29x83@NT@erange=40"});
    ASSERT_EQ(recs.size(), 2 * precisions_of(v).size()) << v;
    for (const auto& r : recs) {
      const auto& val = r["validation"];
      EXPECT_THAT(val.value("note", ""), ContainsRegex("max error/scheme bound [^(]*\\(met\\)"))
          << test::describe(r) << " " << val.dump();
      EXPECT_EQ(val["nan"], 0) << test::describe(r);
    }
  }
}

// Eight moduli leave 2P <= 60 bits for the integer product: a scheme that is correct (its
// own bound holds) and still far from the D bound; the point fails and says why.
TEST(GemmOzaki, TooFewModuliIsReportedAsMissingTheDBound) {
  const auto recs = run("ozaki_int8", {Precision::D}, {"65x33x70", "40x50x9@TN"}, {{"MODULI", "8"}});
  ASSERT_EQ(recs.size(), 2u);
  for (const auto& r : recs) {
    EXPECT_EQ(r.value("status", ""), "failed") << test::describe(r);
    const auto& val = r["validation"];
    EXPECT_GT(val["max_err_over_bound"].get<double>(), 1.0) << test::describe(r);
    const std::string note = val.value("note", "");
    EXPECT_THAT(note, ContainsRegex("moduli=8 .*max error/scheme bound [^(]*\\(met\\)")) << note;
    EXPECT_THAT(note, HasSubstr("missed: the scheme with these slices or moduli does not reach the precision")) << note;
  }
}

// More moduli: more integer bits (P = 27, 35, 43, 51 at k = 56), smaller errors until
// binary64's rounding dominates.
TEST(GemmOzaki, MoreModuliAreMoreAccurate) {
  const auto recs = run("ozaki_int8", {Precision::D}, {"48x40x56"}, {{"MODULI", "8,10,12,14,16"}});
  ASSERT_EQ(recs.size(), 5u);
  std::map<long long, double> err;
  for (const auto& r : recs) err[r["params"]["MODULI"].get<long long>()] = r["validation"]["max_err_over_bound"].get<double>();
  for (long long l : {10, 12, 14}) EXPECT_LT(err[l], err[l - 2]) << l;
  EXPECT_LT(err[16], err[8] * 1e-6);
  EXPECT_LE(err[14], 1.0);  // 14 moduli (P = 51) reach the D bound at k = 56
}

// References for scheme II's fast pieces: fmod's balanced residue and Garner's mixed
// radix (exact balanced digits by 64-bit modular steps, Horner in double-double).
int balanced_ref(double v, int m) {
  long long r = static_cast<long long>(std::fmod(v, static_cast<double>(m))) % m;
  if (r >= (m + 1) / 2) r -= m;
  if (r < -(m / 2)) r += m;
  return static_cast<int>(r);
}
dw<double> garner_ref(const int* r, const std::vector<int>& m) {
  const int L = static_cast<int>(m.size());
  std::vector<long long> v(L);
  for (int l = 0; l < L; ++l) {
    long long t = balanced_ref(r[l], m[l]);
    for (int j = 0; j < l; ++j) {
      long long inv = 1;
      while ((m[j] % m[l]) * inv % m[l] != 1) ++inv;
      t = balanced_ref(static_cast<double>((t - v[j]) * inv), m[l]);
    }
    v[l] = t;
  }
  dw<double> x{static_cast<double>(v[L - 1]), 0.0};
  for (int l = L - 2; l >= 0; --l)
    x = add_accurate(mul_word(x, static_cast<double>(m[l])), dw<double>{static_cast<double>(v[l]), 0.0});
  return x;
}

TEST(GemmOzaki, ResiduesByMagicConstantsMatchFmod) {
  const auto mod = gemm_scheme::moduli(20);
  const auto kc = gemm_scheme::crt_constants(mod);
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int l = 0; l < 20; ++l) {
    const int m = mod[l];
    std::vector<double> vs = {0.0, -0.0, 1, -1, m / 2 * 1.0, -(m / 2) * 1.0, 0x1p51, -0x1p51, 0x1p58, -0x1p58};
    for (int bits = 1; bits <= 78; ++bits)
      for (int t = 0; t < 40; ++t) vs.push_back(std::trunc(std::ldexp(u(rng), bits)));
    // Near the half-way points, where the quotient's rounding decides: q m + (m +- 1)/2.
    for (double q : {3.0, 12345.0, 0x1p40, 0x1p42 + 7, 0x1p49 - 5})
      for (int d : {-(m + 1) / 2, -(m - 1) / 2, (m - 1) / 2, (m + 1) / 2, m / 2, -(m / 2)})
        vs.push_back(std::trunc(q * m + d));
    for (double v : vs)
      ASSERT_EQ(static_cast<std::int8_t>(oz::crt_residue(v, kc.m[l], kc.minv[l], m)),
                static_cast<std::int8_t>(balanced_ref(v, m)))
          << "v = " << v << " m = " << m;
  }
}

// The CRT as a sum of words recovers what Garner's digits do, for values up to M/4 built
// as the GEMMs build them (k products of P-bit integers, int32 sums of INT8 residues).
TEST(GemmOzaki, CrtSumMatchesGarner) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int L : {4, 6, 8, 11, 12, 14, 16, 18, 20}) {
    const auto mod = gemm_scheme::moduli(L);
    const auto kc = gemm_scheme::crt_constants(mod);
    for (int k : {1, 3, 64}) {
      const int P = gemm_scheme::crt_bits(mod, k);
      for (int t = 0; t < 200; ++t) {
        // Full-size integers, and (t odd) a spread that leaves most products small.
        std::vector<double> a(k), b(k);
        for (int p = 0; p < k; ++p) {
          a[p] = std::trunc(std::ldexp(u(rng), P - (t % 2 ? p % 40 : 0)));
          b[p] = std::trunc(std::ldexp(u(rng), P));
        }
        if (t == 0) {  // the extreme: every product -(2^P - 1)^2 (rounded up to 2^P where P > 53)
          std::fill(a.begin(), a.end(), std::ldexp(1.0, P) - 1);
          std::fill(b.begin(), b.end(), 1 - std::ldexp(1.0, P));
        }
        int R[oz::kMaxModuli];
        for (int l = 0; l < L; ++l) {
          R[l] = 0;
          for (int p = 0; p < k; ++p) R[l] += balanced_ref(a[p], mod[l]) * balanced_ref(b[p], mod[l]);
        }
        const dw<double> x = oz::crt_reconstruct(R, kc), g = garner_ref(R, mod);
        const double tol = std::ldexp(std::fabs(g.hi), -100);
        ASSERT_LE(std::fabs((x.hi - g.hi) + (x.lo - g.lo)), tol) << "L = " << L << " k = " << k << " t = " << t;
        ASSERT_EQ(to_double(x), to_double(g)) << "L = " << L << " k = " << k << " t = " << t;
      }
    }
  }
}

TEST(GemmOzaki, EmulationPiecesAreExact) {
  // The CRT sum recovers every balanced value below M/4 from its residues.
  const auto m = gemm_scheme::moduli(4);
  EXPECT_EQ(m, (std::vector<int>{256, 255, 253, 251}));
  const auto kc = gemm_scheme::crt_constants(m);
  for (long long x : {0LL, 1LL, -1LL, 123456789LL, -987654321LL, 1000000000LL}) {
    int r[4];
    for (int l = 0; l < 4; ++l) r[l] = static_cast<int>(x % m[l]);
    const auto d = oz::crt_reconstruct(r, kc);
    EXPECT_EQ(d.hi + d.lo, static_cast<double>(x));
  }
  // TF32 and BF16 rounding to nearest even; the BF16 terms of a binary32 sum back to it.
  EXPECT_EQ(gemm_scheme::round_bits(1.0f + 0x1p-11f, 11), 1.0f);  // tie to even
  EXPECT_EQ(gemm_scheme::round_bits(1.0f + 0x3p-11f, 11), 1.0f + 0x1p-9f);
  const float x = 0.3141592741f;
  EXPECT_EQ(oz::split_term(x, 8, 0) + oz::split_term(x, 8, 1) + oz::split_term(x, 8, 2), x);
  // Scheme I slices reassemble the scaled value.
  double back = 0;
  for (int t = 0; t < 8; ++t) back += std::ldexp(oz::fixed_slice(0.1, -3, 7, t), -7 * (t + 1));
  EXPECT_EQ(std::ldexp(back, -3), 0.1);
}

TEST(GemmOzaki, ParsesTheExponentRange) {
  const Op& op = find_op("gemm");
  auto s = op.parse_sizes("17x33x5@NT@erange=20");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].at("erange"), 2);
  EXPECT_THROW(op.parse_sizes("64@erange=7"), Error);
  EXPECT_THROW(op.parse_sizes("64@erange=10@erange=20"), Error);
  // The magnitudes of A span about 2^20 and stay below 1.
  auto prob = op.make_problem(s[0], Precision::D, 11);
  const double* a = reinterpret_cast<const double*>(prob->array("A").host.data());
  double lo = 1, hi = 0;
  for (std::size_t i = 0; i < 17 * 5; ++i) {
    lo = std::min(lo, std::fabs(a[i]));
    hi = std::max(hi, std::fabs(a[i]));
  }
  EXPECT_LT(hi, 1.0);
  EXPECT_GE(lo, 0x1p-20);
  EXPECT_GT(hi / lo, 0x1p12);
}

}  // namespace
