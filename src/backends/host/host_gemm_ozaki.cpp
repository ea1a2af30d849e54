// Host GEMM by splitting schemes (src/ops/gemm_scheme.hpp, docs/ozaki.md): the exact
// emulation of what the tensor cores compute, the oracle of the CUDA variants of the
// same names. Slices and residues come from kernels/common/ozaki.h, the one source of
// the per-element arithmetic for both; low-precision products are emulated exactly
// (INT8 x INT8 summed in int32; FP16/BF16/TF32 slices multiplied and summed in binary32
// in p order); every variant reports its scheme in the output "scheme", which the op
// validates against the scheme's own bound and the precision's.
#include <omp.h>

#include <cstdint>
#include <vector>

#include "backends/host/host_variant.hpp"
#include "ops/gemm_scheme.hpp"
#include "ops/gemm_storage.hpp"
#include "ops/vector_common.hpp"
#include "kernels/common/ozaki.h"

namespace hetbench {

namespace {

using gemm_scheme::Kind;
using gemm_scheme::Scheme;

struct SchemeCall : HostCall {
  std::string report;
  void collect(Outputs& out) { out["scheme"].assign(report.begin(), report.end()); }
};

// A as m x k rows and B as n x k columns (both contiguous along k), in binary64: the
// precision's storage read once (DF: hi + lo rounded once; d64 as stored).
struct Inputs {
  std::size_t m, n, k;
  std::vector<double> A, B;
};

Inputs read_inputs(const HostCall& c) {
  Inputs in{static_cast<std::size_t>(c.size("m")), static_cast<std::size_t>(c.size("n")),
            static_cast<std::size_t>(c.size("k")), {}, {}};
  const std::size_t m = in.m, n = in.n, k = in.k;
  const bool ta = c.size("ta") != 0, tb = c.size("tb") != 0;
  in.A.resize(m * k);
  in.B.resize(n * k);
  auto fill = [&](auto get) {
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t p = 0; p < k; ++p) in.A[i * k + p] = get(0, ta ? p * m + i : i * k + p);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t p = 0; p < k; ++p) in.B[j * k + p] = get(1, tb ? j * k + p : p * n + j);
  };
  const Precision p = c.prob->prec;
  if (p == Precision::S || p == Precision::D) {
    with_real(p, [&]<class T>() {
      const T* ab[2] = {c.ptr<T>("A"), c.ptr<T>("B")};
      fill([&](int w, std::size_t i) { return static_cast<double>(ab[w][i]); });
      return 0;
    });
  } else {
    with_word(p, [&]<class W>() {
      with_gemm_storage(gemm_storage(c.prob->sizes), [&](auto sc) {
        constexpr GemmStorage S = decltype(sc)::value;
        using M = DwMatrix<W, S>;
        const M ab[2] = {{c.ptr<typename M::Word>("A"), m * k}, {c.ptr<typename M::Word>("B"), k * n}};
        fill([&](int w, std::size_t i) {
          if constexpr (S == GemmStorage::d64) return static_cast<double>(ab[w].p[i]);
          else return to_double(ab[w][i]);
        });
        return 0;
      });
      return 0;
    });
  }
  return in;
}

// C = alpha X + beta C with X_ij = x(i, j) (double-double): binary64 operations for D,
// the accurate double-word ones for DF (X rounded to DF first).
template <class X>
void finish(const HostCall& c, X x) {
  const auto m = static_cast<std::size_t>(c.size("m")), n = static_cast<std::size_t>(c.size("n"));
  if (c.prob->prec == Precision::D) {
    const double alpha = c.scalar("alpha"), beta = c.scalar("beta");
    double* C = c.ptr<double>("C");
#pragma omp parallel for num_threads(c.param("THREADS"))
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const double ax = alpha * to_double(x(i, j));
        C[i * n + j] = beta == 0 ? ax : ax + beta * C[i * n + j];
      }
    return;
  }
  const df alpha{static_cast<float>(c.scalar("alpha_hi")), static_cast<float>(c.scalar("alpha_lo"))};
  const df beta{static_cast<float>(c.scalar("beta_hi")), static_cast<float>(c.scalar("beta_lo"))};
  with_gemm_storage(gemm_storage(c.prob->sizes), [&](auto sc) {
    constexpr GemmStorage S = decltype(sc)::value;
    using M = DwMatrix<float, S, true>;
    const M C{c.ptr<typename M::Word>("C"), m * n};
#pragma omp parallel for num_threads(c.param("THREADS"))
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        C.set(i * n + j, add_accurate(mul_accurate(alpha, oz::dd_to_df(x(i, j))), mul_accurate(beta, C[i * n + j])));
    return 0;
  });
}

std::vector<int> exponents(const std::vector<double>& X, std::size_t rows, std::size_t k) {
  std::vector<int> e(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    double mx = 0;
    for (std::size_t p = 0; p < k; ++p) mx = std::max(mx, std::fabs(X[r * k + p]));
    e[r] = oz::exponent_above(mx);
  }
  return e;
}

// Ozaki scheme I: `format_bits`-bit slices (FP16 11, BF16 8) whose products sum exactly
// in binary32; the pairs t + u <= s - 1 (0-based), smallest first, accumulated in binary64.
void ozaki_fixed(SchemeCall& c, int format_bits, const char* name) {
  const Inputs in = read_inputs(c);
  const std::size_t m = in.m, n = in.n, k = in.k;
  const int s = static_cast<int>(c.param("SLICES"));
  const int b = gemm_scheme::fixed_bits(format_bits, 24, static_cast<long long>(k));
  const auto ea = exponents(in.A, m, k), eb = exponents(in.B, n, k);
  std::vector<std::vector<float>> sa(s, std::vector<float>(m * k)), sb(s, std::vector<float>(n * k));
  for (int t = 0; t < s; ++t) {
    for (std::size_t i = 0; i < m * k; ++i) sa[t][i] = static_cast<float>(oz::fixed_slice(in.A[i], ea[i / k], b, t));
    for (std::size_t i = 0; i < n * k; ++i) sb[t][i] = static_cast<float>(oz::fixed_slice(in.B[i], eb[i / k], b, t));
  }
  std::vector<double> acc(m * n, 0.0);
  for (int d = s - 1; d >= 0; --d)
    for (int t = 0; t <= d; ++t) {
      const int u = d - t;
#pragma omp parallel for num_threads(c.param("THREADS"))
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          float sum = 0;  // exact: k products of b-bit integers stay below 2^24
          for (std::size_t p = 0; p < k; ++p) sum += sa[t][i * k + p] * sb[u][j * k + p];
          acc[i * n + j] += std::ldexp(static_cast<double>(sum), -(d + 2) * b);
        }
    }
  finish(c, [&](std::size_t i, std::size_t j) { return dw<double>{std::ldexp(acc[i * n + j], ea[i] + eb[j]), 0.0}; });
  Scheme sc{Kind::fixed, s, b, false, 0, fmt::format("ozaki1 {} slices={} bits={}", name, s, b)};
  c.report = sc.encode();
}

// Ozaki scheme II: P-bit integers, residues modulo L moduli in INT8, int32 products,
// the CRT as a sum of words reduced modulo M into double-double (kernels/common/ozaki.h).
void ozaki_crt(SchemeCall& c) {
  const Inputs in = read_inputs(c);
  const std::size_t m = in.m, n = in.n, k = in.k;
  const int L = static_cast<int>(c.param("MODULI"));
  const auto mod = gemm_scheme::moduli(L);
  const oz::CrtConst kc = gemm_scheme::crt_constants(mod);
  const int P = gemm_scheme::crt_bits(mod, static_cast<long long>(k));
  const auto ea = exponents(in.A, m, k), eb = exponents(in.B, n, k);
  // The P-bit integers of A (rows) and B (columns), as the CUDA split computes them.
  const auto integers = [&](const std::vector<double>& X, const std::vector<int>& e) {
    std::vector<double> v(X.size());
    for (std::size_t i = 0; i < X.size(); ++i) {
      double s1, s2;
      oz::crt_scales(e[i / k], P, s1, s2);
      v[i] = oz::crt_integer(X[i], s1, s2);
    }
    return v;
  };
  const std::vector<double> va = integers(in.A, ea), vb = integers(in.B, eb);
  std::vector<std::int32_t> res(static_cast<std::size_t>(L) * m * n);
  std::vector<std::int8_t> ra(m * k), rb(n * k);
  for (int l = 0; l < L; ++l) {
    for (std::size_t i = 0; i < m * k; ++i)
      ra[i] = static_cast<std::int8_t>(oz::crt_residue(va[i], kc.m[l], kc.minv[l], mod[l]));
    for (std::size_t i = 0; i < n * k; ++i)
      rb[i] = static_cast<std::int8_t>(oz::crt_residue(vb[i], kc.m[l], kc.minv[l], mod[l]));
    std::int32_t* r = res.data() + static_cast<std::size_t>(l) * m * n;
#pragma omp parallel for num_threads(c.param("THREADS"))
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        std::int32_t sum = 0;  // exact: k 2^14 < 2^31
        for (std::size_t p = 0; p < k; ++p) sum += ra[i * k + p] * rb[j * k + p];
        r[i * n + j] = sum;
      }
  }
  finish(c, [&](std::size_t i, std::size_t j) {
    int r[oz::kMaxModuli];
    for (int l = 0; l < L; ++l) r[l] = res[static_cast<std::size_t>(l) * m * n + i * n + j];
    const dw<double> x = oz::crt_reconstruct(r, kc);
    const int e = ea[i] + eb[j] - 2 * P;
    return dw<double>{std::ldexp(x.hi, e), std::ldexp(x.lo, e)};
  });
  Scheme sc{Kind::crt, L, P, false, 0, fmt::format("ozaki2 int8 moduli={} bits={}", L, P)};
  c.report = sc.encode();
}

// 3xTF32 / BF16x9: `bits`-bit terms, C = beta C, then C = alpha (A_t B_u) + C for the
// kept pairs, smallest first, every GEMM summed in binary32 in p order.
void split_float(SchemeCall& c, int bits, const char* name) {
  const Inputs in = read_inputs(c);
  const std::size_t m = in.m, n = in.n, k = in.k;
  const int s = static_cast<int>(c.param("SLICES"));
  const bool full = c.param("FULL") != 0;
  std::vector<std::vector<float>> sa(s, std::vector<float>(m * k)), sb(s, std::vector<float>(n * k));
  for (int t = 0; t < s; ++t) {
    for (std::size_t i = 0; i < m * k; ++i) sa[t][i] = oz::split_term(static_cast<float>(in.A[i]), bits, t);
    for (std::size_t i = 0; i < n * k; ++i) sb[t][i] = oz::split_term(static_cast<float>(in.B[i]), bits, t);
  }
  const float alpha = static_cast<float>(c.scalar("alpha")), beta = static_cast<float>(c.scalar("beta"));
  float* C = c.ptr<float>("C");
  for (std::size_t i = 0; i < m * n; ++i) C[i] = beta == 0 ? 0.0f : beta * C[i];
  for (int d = 2 * s - 2; d >= 0; --d)
    for (int t = 0; t < s; ++t) {
      const int u = d - t;
      if (u < 0 || u >= s || (!full && d > s - 1)) continue;
#pragma omp parallel for num_threads(c.param("THREADS"))
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          float sum = 0;
          for (std::size_t p = 0; p < k; ++p) sum += sa[t][i * k + p] * sb[u][j * k + p];
          C[i * n + j] = alpha * sum + C[i * n + j];
        }
    }
  Scheme sc{Kind::split, s, bits, full, 0x1p-24, fmt::format("split {} slices={}{}", name, s, full ? " full" : "")};
  c.report = sc.encode();
}

ParamDef slices_param(long long d, long long df, long long hi) {
  std::vector<long long> v;
  for (long long x = 1; x <= hi; ++x) v.push_back(x);
  return {"SLICES", v, d, "slices of A and B (more: more accurate and more GEMMs)", {{Precision::D, d}, {Precision::DF, df}}};
}

const bool registered_host_gemm_ozaki = [] {
  const std::vector<Precision> d_df{Precision::D, Precision::DF};
  register_code_variant<SchemeCall>(
      host_code("gemm", "ozaki_int8",
                "Ozaki scheme II (Ozaki, Uchino, Imamura): INT8 residues modulo MODULI coprime moduli, int32 "
                "products, the CRT as an exact sum reduced modulo M into double-double (exact emulation of the CUDA "
                "variant)",
                {threads_param(), {"MODULI", {4, 6, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 16,
                                   "moduli (INT8 GEMMs); fewer: faster, less accurate"}},
                d_df),
      ozaki_crt);
  register_code_variant<SchemeCall>(
      host_code("gemm", "ozaki_f16",
                "Ozaki scheme I (Ozaki, Ogita, Oishi, Rump): integer slices exact in FP16, products exact in binary32, "
                "s(s+1)/2 GEMMs summed in binary64",
                {threads_param(), slices_param(10, 8, 16)}, d_df),
      [](SchemeCall& c) { ozaki_fixed(c, 11, "f16"); });
  register_code_variant<SchemeCall>(
      host_code("gemm", "ozaki_bf16", "Ozaki scheme I on BF16 slices (8 bits), products exact in binary32",
                {threads_param(), slices_param(10, 8, 16)}, d_df),
      [](SchemeCall& c) { ozaki_fixed(c, 8, "bf16"); });
  const ParamDef full{"FULL", {0, 1}, 0, "1: all SLICES^2 products; 0: those with t + u < SLICES"};
  register_code_variant<SchemeCall>(
      host_code("gemm", "split_tf32", "3xTF32 (CUTLASS): TF32 terms, binary32 accumulation",
                {threads_param(), {"SLICES", {1, 2, 3}, 2, "TF32 terms of A and B"}, full}, {Precision::S}),
      [](SchemeCall& c) { split_float(c, 11, "tf32"); });
  register_code_variant<SchemeCall>(
      host_code("gemm", "split_bf16", "BF16x9 (BF16x6 with FULL=0): BF16 terms, binary32 accumulation",
                {threads_param(), {"SLICES", {1, 2, 3}, 3, "BF16 terms of A and B"},
                 {"FULL", {0, 1}, 1, "1: all SLICES^2 products; 0: those with t + u < SLICES"}},
                {Precision::S}),
      [](SchemeCall& c) { split_float(c, 8, "bf16"); });
  return true;
}();

}  // namespace
}  // namespace hetbench
