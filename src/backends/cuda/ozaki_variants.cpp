// CUDA GEMM by splitting schemes (docs/ozaki.md): own scaling, splitting and
// accumulation kernels (kernels/cuda/gemm/ozaki.cuh) around cuBLAS low-precision GEMMs
// (cublasGemmEx: INT8 -> INT32, FP16/BF16 -> FP32, TF32), and cuBLAS 13's own emulation
// modes as baselines. The host variants of the same names (src/backends/host/
// host_gemm_ozaki.cpp) are the exact emulation; every variant reports its scheme in the
// output "scheme" for the op's validation against the scheme's bound.
#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "backends/cuda/cublas_gemm.hpp"
#include "backends/cuda/cuda_dl.hpp"
#include "backends/cuda/ozaki_kernels.hpp"
#include "ops/gemm_scheme.hpp"
#include "ops/gemm_storage.hpp"

namespace hetbench {

namespace {

namespace L = ozaki_launch;
using gemm_scheme::Kind;
using gemm_scheme::Scheme;

// cublasGemmEx by name: the header overloads it (and the emulation-strategy setter) for C++.
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
GemmExFn gemm_ex() {
  static const auto f = reinterpret_cast<GemmExFn>(cuda_dl::symbol("cublasGemmEx"));
  return f;
}

// HETBENCH_OZAKI_PHASES=FILE: every run appends "label m n k gemms split_ms gemm_ms
// finish_ms" from CUDA events between its phases (scripts/ozaki-bench's roofline pass;
// the synchronisation at the end of each run is why it is not on by default).
struct PhaseLog {
  const char* file = std::getenv("HETBENCH_OZAKI_PHASES");
  cudaEvent_t ev[4] = {};
  void mark(int i, cudaStream_t s) {
    if (!file) return;
    if (!ev[i]) cudaEventCreate(&ev[i]);
    cudaEventRecord(ev[i], s);
  }
  void write(const std::string& label, int m, int n, int k, int gemms) {
    if (!file) return;
    cudaEventSynchronize(ev[3]);
    float t[3] = {};
    for (int i = 0; i < 3; ++i) cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]);
    if (FILE* f = std::fopen(file, "a")) {
      std::fprintf(f, "%s\t%d\t%d\t%d\t%d\t%.6f\t%.6f\t%.6f\n", label.c_str(), m, n, k, gemms, t[0], t[1], t[2]);
      std::fclose(f);
    }
  }
};

// Scratch (allocated in setup, untimed) and the scheme's constants.
struct SchemeCall : CudaCall {
  PhaseLog phases;
  Scheme scheme;
  std::string report;
  int m = 0, n = 0, k = 0, kp = 0, mp = 0, np = 0;  // kp, mp, np: k, m, n padded to 16
  oz::CrtConst crt{};
  std::vector<std::unique_ptr<Buffer>> scratch;
  void *sa = nullptr, *sb = nullptr, *prod = nullptr, *acc = nullptr;
  int *ea = nullptr, *eb = nullptr;
  double* partial = nullptr;  // the row maxima's per-chunk partials

  void* take(std::size_t bytes) {
    scratch.push_back(dev->alloc(std::max<std::size_t>(bytes, 16)));
    return scratch.back()->native();
  }
  void collect(Outputs& out) { out["scheme"].assign(report.begin(), report.end()); }
  // Operand storage kind of the split kernels: 0 binary32, 1 binary64, 2 DF interleaved, 3 DF planes.
  int kind() const {
    if (prob->prec == Precision::S) return 0;
    if (prob->prec == Precision::D) return 1;
    const GemmStorage s = gemm_storage(prob->sizes);
    return s == GemmStorage::d64 ? 1 : s == GemmStorage::soa ? 3 : 2;
  }
  // A's rows and B's columns as stored (A m x k or, with ta, k x m; B k x n or n x k).
  L::Operand stored_a() {
    const long long k_ = k, m_ = m;
    const bool ta = size("ta") != 0;
    return {ptr("A"), kind(), static_cast<unsigned long long>(m_ * k_), ta ? 1 : k_, ta ? m_ : 1, m, k};
  }
  L::Operand stored_b() {
    const long long k_ = k, n_ = n;
    const bool tb = size("tb") != 0;
    return {ptr("B"), kind(), static_cast<unsigned long long>(k_ * n_), tb ? k_ : 1, tb ? 1 : n_, n, k};
  }
};

// Sizes, padded sizes and (fixed, crt) the exponents' scratch.
void setup_common(SchemeCall& c, bool need_exponents) {
  c.m = c.int_size("m");
  c.n = c.int_size("n");
  c.k = c.int_size("k");
  c.kp = (c.k + 15) / 16 * 16;
  // Schemes I and II multiply mp x kp by kp x np slices into mp x np products: INT8
  // (and fast half-precision) GEMMs want dimensions in multiples of 4 or more.
  c.mp = (c.m + 15) / 16 * 16;
  c.np = (c.n + 15) / 16 * 16;
  if (need_exponents) {
    c.ea = static_cast<int*>(c.take(static_cast<std::size_t>(c.m) * 4));
    c.eb = static_cast<int*>(c.take(static_cast<std::size_t>(c.n) * 4));
    const std::size_t pm = static_cast<std::size_t>(L::max_chunks(c.m, c.k)) * c.m,
                      pn = static_cast<std::size_t>(L::max_chunks(c.n, c.k)) * c.n;
    c.partial = static_cast<double*>(c.take(std::max(pm, pn) * 8));
  }
}

// e_i and f_j of A's rows and B's columns, read as stored.
void exponents(SchemeCall& c) {
  const auto s = c.dev->stream();
  L::exponents(c.stored_a(), c.partial, c.ea, s);
  L::exponents(c.stored_b(), c.partial, c.eb, s);
}

L::Out out_of(SchemeCall& c) {
  const bool df = c.prob->prec == Precision::DF;
  return {c.ptr("C"), c.kind(), df ? 1 : 0, static_cast<unsigned long long>(c.m) * c.n, c.scalar("alpha_hi"),
          c.scalar("alpha_lo"), c.scalar("beta_hi"), c.scalar("beta_lo")};
}

// Row-major P (M x N, leading dimension ldp) = A_t B_u^T over kp through column-major
// cuBLAS "TN": P^T = B_u^T A_t.
void product(SchemeCall& c, int M, int N, const void* a, const void* b, cudaDataType in, void* p, cudaDataType out,
             cublasComputeType_t compute, const void* alpha, const void* beta, int ldp) {
  auto& d = *c.dev;
  blas_check(HB_DL(cublasSetPointerMode)(d.blas(), CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode", d);
  blas_check(gemm_ex()(d.blas(), CUBLAS_OP_T, CUBLAS_OP_N, N, M, c.kp, alpha, b, in, c.kp, a, in, c.kp,
                                 beta, p, out, ldp, compute, CUBLAS_GEMM_DEFAULT),
             "cublasGemmEx", d);
}

// Ozaki scheme I on FP16 (type 0, 11-bit slices) or BF16 (type 1, 8-bit slices).
void register_fixed(const char* name, int type) {
  const int fmt_bits = type == 0 ? 11 : 8;
  std::vector<long long> v;
  for (long long x = 1; x <= 16; ++x) v.push_back(x);
  register_code_variant<SchemeCall>(
      {.op = "gemm", .name = name,
       .description = fmt::format("Ozaki scheme I: {}-bit integer slices in {}, cublasGemmEx with FP32 accumulation "
                                  "(exact), s(s+1)/2 GEMMs summed in binary64 by own kernels",
                                  fmt_bits, type == 0 ? "FP16" : "BF16"),
       .library = "cuBLAS",
       .precisions = {Precision::D, Precision::DF},
       .params = {{"SLICES", v, 10, "slices of A and B", {{Precision::D, 10}, {Precision::DF, 8}}}}},
      [type](SchemeCall& c) {
        const auto s = c.dev->stream();
        const int S = c.scheme.slices, b = c.scheme.bits;
        c.phases.mark(0, s);
        exponents(c);
        L::fixed_split(c.stored_a(), c.ea, c.mp, c.kp, b, S, type, c.sa, s);
        L::fixed_split(c.stored_b(), c.eb, c.np, c.kp, b, S, type, c.sb, s);
        HB_CUDA(cudaGetLastError(), c.dev->id());
        HB_CUDA(cudaMemsetAsync(c.acc, 0, static_cast<std::size_t>(c.mp) * c.np * 8, s), c.dev->id());
        const cudaDataType in = type == 0 ? CUDA_R_16F : CUDA_R_16BF;
        const std::size_t sa = static_cast<std::size_t>(c.mp) * c.kp * 2, sb = static_cast<std::size_t>(c.np) * c.kp * 2;
        const float one = 1, zero = 0;
        c.phases.mark(1, s);
        // A diagonal's d + 1 products into their own planes, then one accumulation pass.
        const unsigned long long plane = static_cast<unsigned long long>(c.mp) * c.np;
        for (int d = S - 1; d >= 0; --d) {
          for (int t = 0; t <= d; ++t)
            product(c, c.mp, c.np, static_cast<char*>(c.sa) + t * sa, static_cast<char*>(c.sb) + (d - t) * sb, in,
                    static_cast<char*>(c.prod) + t * plane * 4, CUDA_R_32F, CUBLAS_COMPUTE_32F, &one, &zero, c.np);
          L::accumulate(static_cast<const float*>(c.prod), plane, d + 1, (d + 2) * b, static_cast<double*>(c.acc), s);
        }
        c.phases.mark(2, s);  // the accumulation is counted with the GEMMs
        L::finish_fixed(static_cast<const double*>(c.acc), c.ea, c.eb, c.m, c.n, c.np, out_of(c), s);
        HB_CUDA(cudaGetLastError(), c.dev->id());
        c.phases.mark(3, s);
        c.phases.write(c.scheme.label, c.m, c.n, c.k, c.scheme.gemms());
      },
      [type, fmt_bits, name](SchemeCall& c) {
        setup_common(c, true);
        const int S = static_cast<int>(c.param("SLICES"));
        const int b = gemm_scheme::fixed_bits(fmt_bits, 24, c.k);
        c.scheme = {Kind::fixed, S, b, false, 0, fmt::format("ozaki1 {} slices={} bits={}", name + 6, S, b)};
        c.report = c.scheme.encode();
        c.sa = c.take(static_cast<std::size_t>(S) * c.mp * c.kp * 2);
        c.sb = c.take(static_cast<std::size_t>(S) * c.np * c.kp * 2);
        c.prod = c.take(static_cast<std::size_t>(S) * c.mp * c.np * 4);
        c.acc = c.take(static_cast<std::size_t>(c.mp) * c.np * 8);
      });
}

// Scheme II: exponents and residue planes straight from the stored operands, L INT8
// GEMMs, the CRT finish; all on one stream, no host synchronisation.
void run_crt(SchemeCall& c) {
  const auto s = c.dev->stream();
  const int Lm = c.scheme.slices, P = c.scheme.bits;
  const std::size_t sa = static_cast<std::size_t>(c.mp) * c.kp, sb = static_cast<std::size_t>(c.np) * c.kp,
                    sp = static_cast<std::size_t>(c.mp) * c.np * 4;
  c.phases.mark(0, s);
  const L::Operand A = c.stored_a(), B = c.stored_b();
  exponents(c);
  L::crt_split(A, c.ea, c.mp, c.kp, P, c.crt, static_cast<signed char*>(c.sa), sa, s);
  L::crt_split(B, c.eb, c.np, c.kp, P, c.crt, static_cast<signed char*>(c.sb), sb, s);
  HB_CUDA(cudaGetLastError(), c.dev->id());
  const int one = 1, zero = 0;
  c.phases.mark(1, s);
  for (int l = 0; l < Lm; ++l)
    product(c, c.mp, c.np, static_cast<char*>(c.sa) + l * sa, static_cast<char*>(c.sb) + l * sb, CUDA_R_8I,
            static_cast<char*>(c.prod) + l * sp, CUDA_R_32I, CUBLAS_COMPUTE_32I, &one, &zero, c.np);
  c.phases.mark(2, s);
  L::crt_finish(static_cast<const int*>(c.prod), static_cast<unsigned long long>(c.mp) * c.np, c.np, c.crt, P, c.ea,
                c.eb, c.m, c.n, out_of(c), s);
  HB_CUDA(cudaGetLastError(), c.dev->id());
  c.phases.mark(3, s);
  c.phases.write(c.scheme.label, c.m, c.n, c.k, c.scheme.gemms());
}

void setup_crt(SchemeCall& c) {
  setup_common(c, true);
  const int Lm = static_cast<int>(c.param("MODULI"));
  const auto mod = gemm_scheme::moduli(Lm);
  c.crt = gemm_scheme::crt_constants(mod);
  const int P = gemm_scheme::crt_bits(mod, c.k);
  c.scheme = {Kind::crt, Lm, P, false, 0, fmt::format("ozaki2 int8 moduli={} bits={}", Lm, P)};
  c.report = c.scheme.encode();
  c.sa = c.take(static_cast<std::size_t>(Lm) * c.mp * c.kp);
  c.sb = c.take(static_cast<std::size_t>(Lm) * c.np * c.kp);
  c.prod = c.take(static_cast<std::size_t>(Lm) * c.mp * c.np * 4);
}

// 3xTF32 (type 0: binary32 terms holding TF32 values, TF32 GEMMs) or BF16x9 (type 1):
// C = alpha (A_t B_u) + C over the kept pairs, smallest first, beta on the first.
void register_split(const char* name, int type, long long slices, long long full) {
  const int bits = type == 0 ? 11 : 8;
  register_code_variant<SchemeCall>(
      {.op = "gemm", .name = name,
       .description = type == 0 ? "3xTF32 (CUTLASS): TF32 terms by own kernel, cublasGemmEx "
                                  "CUBLAS_COMPUTE_32F_FAST_TF32 accumulating into C"
                                : "BF16x9 (BF16x6 with FULL=0): BF16 terms by own kernel, cublasGemmEx BF16 inputs with "
                                  "FP32 accumulation into C",
       .library = "cuBLAS",
       .precisions = {Precision::S},
       .params = {{"SLICES", {1, 2, 3}, slices, "terms of A and B"},
                  {"FULL", {0, 1}, full, "1: all SLICES^2 products; 0: those with t + u < SLICES"}}},
      [type](SchemeCall& c) {
        const auto s = c.dev->stream();
        const int S = c.scheme.slices;
        c.phases.mark(0, s);
        L::float_split(c.stored_a(), c.kp, c.scheme.bits, S, type, c.sa, s);
        L::float_split(c.stored_b(), c.kp, c.scheme.bits, S, type, c.sb, s);
        HB_CUDA(cudaGetLastError(), c.dev->id());
        const std::size_t es = type == 0 ? 4 : 2;
        const std::size_t sa = static_cast<std::size_t>(c.m) * c.kp * es, sb = static_cast<std::size_t>(c.n) * c.kp * es;
        const float alpha = static_cast<float>(c.scalar("alpha")), beta = static_cast<float>(c.scalar("beta")), one = 1;
        bool first = true;
        c.phases.mark(1, s);
        for (int d = 2 * S - 2; d >= 0; --d)
          for (int t = 0; t < S; ++t) {
            const int u = d - t;
            if (u < 0 || u >= S || (!c.scheme.full && d > S - 1)) continue;
            product(c, c.m, c.n, static_cast<char*>(c.sa) + t * sa, static_cast<char*>(c.sb) + u * sb,
                    type == 0 ? CUDA_R_32F : CUDA_R_16BF, c.ptr("C"), CUDA_R_32F,
                    type == 0 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, &alpha, first ? &beta : &one, c.n);
            first = false;
          }
        c.phases.mark(2, s);
        c.phases.mark(3, s);  // no separate finish: the GEMMs accumulate into C
        c.phases.write(c.scheme.label, c.m, c.n, c.k, c.scheme.gemms());
      },
      [type, bits, name](SchemeCall& c) {
        setup_common(c, false);
        const int S = static_cast<int>(c.param("SLICES"));
        const bool full = c.param("FULL") != 0;
        // Tensor cores may accumulate with truncation: twice the unit roundoff of RN.
        c.scheme = {Kind::split, S, bits, full, 0x1p-23, fmt::format("{} slices={}{}", name, S, full ? " full" : "")};
        c.report = c.scheme.encode();
        const std::size_t es = type == 0 ? 4 : 2;
        c.sa = c.take(static_cast<std::size_t>(S) * c.m * c.kp * es);
        c.sb = c.take(static_cast<std::size_t>(S) * c.n * c.kp * es);
      });
}

// cuBLAS 13's emulation (cublasSetEmulationStrategy, EAGER: emulate wherever the library
// can) through the emulated compute types; the handle is shared, so the strategy goes
// back to DEFAULT after the call. Looked up by name: the header overloads the setter.
void emulated_gemm(CudaCall& c, bool dbl) {
  auto& d = *c.dev;
  using SetFn = cublasStatus_t (*)(cublasHandle_t, cublasEmulationStrategy_t);
  static const auto set = reinterpret_cast<SetFn>(cuda_dl::symbol("cublasSetEmulationStrategy"));
  const RowMajorGemm g = row_major_gemm(c);
  auto h = d.blas();
  blas_check(HB_DL(cublasSetPointerMode)(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode", d);
  blas_check(set(h, CUBLAS_EMULATION_STRATEGY_EAGER), "cublasSetEmulationStrategy", d);
  const double a = c.scalar("alpha"), b = c.scalar("beta");
  const float af = static_cast<float>(a), bf = static_cast<float>(b);
  const cudaDataType t = dbl ? CUDA_R_64F : CUDA_R_32F;
  const cublasStatus_t st = gemm_ex()(
      h, g.opb, g.opa, g.n, g.m, g.k, dbl ? static_cast<const void*>(&a) : &af, c.ptr("B"), t, g.ldb, c.ptr("A"), t,
      g.lda, dbl ? static_cast<const void*>(&b) : &bf, c.ptr("C"), t, g.ldc,
      dbl ? CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT : CUBLAS_COMPUTE_32F_EMULATED_16BFX9, CUBLAS_GEMM_DEFAULT);
  set(h, CUBLAS_EMULATION_STRATEGY_DEFAULT);
  blas_check(st, dbl ? "cublasGemmEx (CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT)" : "cublasGemmEx (CUBLAS_COMPUTE_32F_EMULATED_16BFX9)",
             d);
}

const bool registered_ozaki_variants = [] {
  register_code_variant<SchemeCall>(
      {.op = "gemm", .name = "ozaki_int8",
       .description = "Ozaki scheme II (Ozaki, Uchino, Imamura): INT8 residues modulo MODULI coprime moduli, "
                      "cublasGemmEx INT8 x INT8 -> INT32 (CUBLAS_COMPUTE_32I), the CRT as an exact sum reduced modulo M "
                      "into double-double, by own kernels",
       .library = "cuBLAS",
       .precisions = {Precision::D, Precision::DF},
       .params = {{"MODULI", {4, 6, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 16,
                   "moduli (INT8 GEMMs); fewer: faster, less accurate"}}},
      run_crt, setup_crt);
  register_fixed("ozaki_f16", 0);
  register_fixed("ozaki_bf16", 1);
  register_split("split_tf32", 0, 2, 0);
  register_split("split_bf16", 1, 3, 1);
  register_code_variant<CudaCall>(
      {.op = "gemm", .name = "cublas_emulated",
       .description = "cuBLAS 13 emulation, strategy EAGER: S via CUBLAS_COMPUTE_32F_EMULATED_16BFX9 (BF16x9), D via "
                      "CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT (fixed-point Ozaki); cuBLAS runs them natively where "
                      "the architecture has no emulation path (docs/ozaki.md)",
       .library = "cuBLAS"},
      [](CudaCall& c) { emulated_gemm(c, c.dbl()); });
  return true;
}();

}  // namespace
}  // namespace hetbench
