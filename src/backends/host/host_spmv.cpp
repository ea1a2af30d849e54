// Host SpMV variants: a sequential loop, an OpenMP loop whose threads get equal shares of
// nonzeros (not of rows, so that power-law matrices stay balanced), and Eigen's sparse
// row-major product as the library baseline; in DF and DD the same loop and split with
// the accurate double-word multiply and add.
#include <omp.h>

#include <algorithm>

#include "backends/host/host_variant.hpp"
#include "ops/spmv_dw.hpp"

#ifdef HETBENCH_HAVE_EIGEN
#include <Eigen/SparseCore>
#endif

namespace hetbench {

namespace {

template <class T>
struct Csr {
  std::size_t rows;
  const int32_t* rp;
  const int32_t* col;
  const T* val;
  const T* x;
  T* y;
  T alpha, beta;
};

template <class T>
Csr<T> csr(const HostCall& c) {
  return {static_cast<std::size_t>(c.size("rows")), c.ptr<int32_t>("row_ptr"), c.ptr<int32_t>("col"),
          c.ptr<T>("val"), c.ptr<T>("x"), c.ptr<T>("y"), static_cast<T>(c.scalar("alpha")),
          static_cast<T>(c.scalar("beta"))};
}

template <class T>
void rows_range(const Csr<T>& a, std::size_t r0, std::size_t r1) {
  for (std::size_t i = r0; i < r1; ++i) {
    T s = 0;
    for (auto q = a.rp[i]; q < a.rp[i + 1]; ++q) s += a.val[q] * a.x[a.col[q]];
    a.y[i] = a.alpha * s + a.beta * a.y[i];
  }
}

// The double-word operands in the problem's storage, W the word type.
template <class W, bool Soa>
struct DwCsr {
  std::size_t rows;
  const int32_t* rp;
  const int32_t* col;
  DwSpan<const W, Soa> val, x;
  DwSpan<W, Soa> y;
  dw<W> alpha, beta;
};

template <class W, bool Soa>
void rows_range(const DwCsr<W, Soa>& a, std::size_t r0, std::size_t r1) {
  for (std::size_t i = r0; i < r1; ++i) {
    dw<W> s{};
    for (auto q = a.rp[i]; q < a.rp[i + 1]; ++q) s = add_accurate(s, mul_accurate(a.val[q], a.x[a.col[q]]));
    a.y.set(i, add_accurate(mul_accurate(a.alpha, s), mul_accurate(a.beta, a.y[i])));
  }
}

// Calls f(a) with the CSR operands of c: Csr<T> in S and D, DwCsr<W, soa> in DF and DD.
template <class F>
void with_csr(const HostCall& c, F&& f) {
  if (!is_double_word(c.prob->prec)) {
    with_real(c.prob->prec, [&]<class T>() {
      f(csr<T>(c));
      return 0;
    });
    return;
  }
  with_word(c.prob->prec, [&]<class W>() {
    const auto rows = static_cast<std::size_t>(c.size("rows"));
    const auto cols = static_cast<std::size_t>(c.size("cols")), nnz = static_cast<std::size_t>(c.size("nnz"));
    const bool soa = spmv_detail::spmv_storage_axis().index(c.prob->sizes) != 0;
    with_layout(soa, [&](auto l) {
      constexpr bool S = decltype(l)::value;
      auto words = [&](const char* nm) { return dw<W>{static_cast<W>(c.scalar(std::string(nm) + "_hi")),
                                                       static_cast<W>(c.scalar(std::string(nm) + "_lo"))}; };
      f(DwCsr<W, S>{rows, c.ptr<int32_t>("row_ptr"), c.ptr<int32_t>("col"), {c.ptr<W>("val"), nnz},
                    {c.ptr<W>("x"), cols}, {c.ptr<W>("y"), rows}, words("alpha"), words("beta")});
    });
    return 0;
  });
}

void spmv_loop(const HostCall& c) {
  with_csr(c, [&](const auto& a) { rows_range(a, 0, a.rows); });
}

// Thread t takes the rows whose nonzeros start in [t·nnz/T, (t+1)·nnz/T), plus a share of
// the rows for empty-row-heavy matrices: the split searches rowptr[i] + i, the merge-path
// diagonal of Merrill & Garland, so rows and nonzeros both count.
void spmv_omp(const HostCall& c) {
  with_csr(c, [&](const auto& a) {
    const int nt = static_cast<int>(c.param("THREADS"));
    const std::size_t work = static_cast<std::size_t>(a.rp[a.rows]) + a.rows;
#pragma omp parallel num_threads(nt)
    {
      const auto t = static_cast<std::size_t>(omp_get_thread_num()), T_ = static_cast<std::size_t>(omp_get_num_threads());
      auto split = [&](std::size_t d) {  // first row i with rowptr[i] + i >= d
        std::size_t lo = 0, hi = a.rows;
        while (lo < hi) {
          const std::size_t mid = (lo + hi) / 2;
          if (static_cast<std::size_t>(a.rp[mid]) + mid < d) lo = mid + 1;
          else hi = mid;
        }
        return lo;
      };
      rows_range(a, split(work * t / T_), split(work * (t + 1) / T_));
    }
  });
}

#ifdef HETBENCH_HAVE_EIGEN
// A zero-copy view of the CSR arrays as Eigen's row-major compressed matrix; Eigen runs
// the row-major sparse × dense product with OpenMP when it is enabled.
void spmv_eigen(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto a = csr<T>(c);
    const auto rows = static_cast<Eigen::Index>(a.rows), cols = static_cast<Eigen::Index>(c.size("cols"));
    Eigen::Map<const Eigen::SparseMatrix<T, Eigen::RowMajor, int32_t>> A(rows, cols, c.size("nnz"), a.rp, a.col,
                                                                        a.val);
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>> x(a.x, cols);
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> y(a.y, rows);
    Eigen::setNbThreads(static_cast<int>(c.param("THREADS")));
    y = a.alpha * (A * x) + a.beta * y;
    return 0;
  });
}
#endif

const bool registered_host_spmv = [] {
  register_code_variant<HostCall>(host_code("spmv", "loop", "one row after another, sequential"), spmv_loop);
  const std::vector<Precision> dw_precs{Precision::DF, Precision::DD};
  register_code_variant<HostCall>(
      host_code("spmv", "dw_loop", "one row after another, sequential, accurate double-word mul and add", {}, dw_precs),
      spmv_loop);
  register_code_variant<HostCall>(
      host_code("spmv", "dw_omp",
                "OpenMP, merge-path split of rows + nonzeros as omp, accurate double-word mul and add",
                {threads_param()}, dw_precs),
      spmv_omp);
  register_code_variant<HostCall>(
      host_code("spmv", "omp",
                "OpenMP, rows split so that each thread gets an equal share of rows + nonzeros (merge-path split)",
                {threads_param()}),
      spmv_omp);
#ifdef HETBENCH_HAVE_EIGEN
  register_code_variant<HostCall>(
      {.op = "spmv",
       .name = "eigen",
       .description = "Eigen 3 row-major SparseMatrix * vector (zero-copy Map), OpenMP threads",
       .library = "Eigen",
       .params = {threads_param()}},
      spmv_eigen);
#else
  missing_baselines().emplace_back("host/spmv/eigen", "Eigen 3 was not found at build time (install libeigen3-dev)");
#endif
  return true;
}();

}  // namespace
}  // namespace hetbench
