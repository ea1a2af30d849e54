// Host GEMM in DF and DD: rows in parallel (OpenMP), the accurate double-word multiply
// and add of hetbench/dfdd.hpp, any storage (@aos, @soa, @d64: src/ops/gemm_storage.hpp).
#include <omp.h>

#include <vector>

#include "backends/host/host_variant.hpp"
#include "ops/gemm_storage.hpp"

namespace hetbench {

namespace {

template <class W, GemmStorage S>
void gemm_dw_rows(const HostCall& c) {
  using M = DwMatrix<W, S>;
  using Word = typename M::Word;
  const auto m = static_cast<std::size_t>(c.size("m")), n = static_cast<std::size_t>(c.size("n")),
             k = static_cast<std::size_t>(c.size("k"));
  const bool ta = c.size("ta") != 0, tb = c.size("tb") != 0;
  const M A{c.ptr<Word>("A"), m * k}, B{c.ptr<Word>("B"), k * n};
  const DwMatrix<W, S, true> C{c.ptr<Word>("C"), m * n};
  const dw<W> alpha{static_cast<W>(c.scalar("alpha_hi")), static_cast<W>(c.scalar("alpha_lo"))};
  const dw<W> beta{static_cast<W>(c.scalar("beta_hi")), static_cast<W>(c.scalar("beta_lo"))};
#pragma omp parallel num_threads(c.param("THREADS"))
  {
    std::vector<dw<W>> acc(n);
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < m; ++i) {
      if (!tb) {
        // i-p-j: a row of B streams through the row of accumulators.
        std::fill(acc.begin(), acc.end(), dw<W>{0, 0});
        for (std::size_t p = 0; p < k; ++p) {
          const dw<W> aip = A[ta ? p * m + i : i * k + p];
          for (std::size_t j = 0; j < n; ++j) acc[j] = add_accurate(mul_accurate(aip, B[p * n + j]), acc[j]);
        }
      } else {
        // i-j-p: a column of op(B) is a row of the stored B.
        for (std::size_t j = 0; j < n; ++j) {
          dw<W> s{0, 0};
          for (std::size_t p = 0; p < k; ++p) s = add_accurate(mul_accurate(A[ta ? p * m + i : i * k + p], B[j * k + p]), s);
          acc[j] = s;
        }
      }
      for (std::size_t j = 0; j < n; ++j)
        C.set(i * n + j, add_accurate(mul_accurate(alpha, acc[j]), mul_accurate(beta, C[i * n + j])));
    }
  }
}

void gemm_dw(const HostCall& c) {
  with_word(c.prob->prec, [&]<class W>() {
    with_gemm_storage(gemm_storage(c.prob->sizes), [&](auto s) {
      gemm_dw_rows<W, decltype(s)::value>(c);
      return 0;
    });
    return 0;
  });
}

const bool registered_host_gemm_dw = [] {
  register_code_variant<HostCall>(
      host_code("gemm", "dw",
                "OpenMP over rows, accurate double-word mul and add (JMP 2017 Alg. 12, 6); i-k-j order (i-j-k when B "
                "is transposed); storage aos, soa or d64",
                {threads_param()}, {Precision::DF, Precision::DD}),
      gemm_dw);
  return true;
}();

}  // namespace
}  // namespace hetbench
