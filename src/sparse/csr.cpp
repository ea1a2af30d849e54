#include "sparse/csr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "hetbench/error.hpp"

namespace hetbench {

MatrixFeatures matrix_features(const CsrMatrix& m) {
  check_csr(m);
  MatrixFeatures f;
  f.rows = m.rows;
  f.cols = m.cols;
  f.nnz = m.nnz();
  f.bytes = f.nnz * int64_t{sizeof(double) + sizeof(int32_t)} +
            static_cast<int64_t>(m.rowptr.size()) * int64_t{sizeof(int32_t)};
  if (m.rows == 0) return f;
  f.row_min = std::numeric_limits<int64_t>::max();
  double sum_sq = 0;
  for (int64_t i = 0; i < m.rows; ++i) {
    int64_t len = m.rowptr[i + 1] - m.rowptr[i];
    f.row_min = std::min(f.row_min, len);
    f.row_max = std::max(f.row_max, len);
    sum_sq += static_cast<double>(len) * static_cast<double>(len);
    if (len > 0) {
      // Columns are sorted, so the extreme distances are at the row's ends.
      f.bandwidth = std::max({f.bandwidth, std::abs(i - m.colidx[m.rowptr[i]]),
                              std::abs(i - m.colidx[m.rowptr[i + 1] - 1])});
    }
  }
  double n = static_cast<double>(m.rows);
  f.row_mean = static_cast<double>(f.nnz) / n;
  f.row_std = std::sqrt(std::max(0.0, sum_sq / n - f.row_mean * f.row_mean));
  return f;
}

nlohmann::json to_json(const MatrixFeatures& f) {
  return {{"rows", f.rows},         {"cols", f.cols},         {"nnz", f.nnz},
          {"row_min", f.row_min},   {"row_max", f.row_max},   {"row_mean", f.row_mean},
          {"row_std", f.row_std},   {"bandwidth", f.bandwidth}, {"bytes", f.bytes}};
}

void check_csr(const CsrMatrix& m, const char* what) {
  auto fail = [&](const std::string& why) { throw Error(std::string(what) + ": " + why); };
  constexpr int64_t max32 = std::numeric_limits<int32_t>::max();
  if (m.rows < 0 || m.cols < 0 || m.rows > max32 || m.cols > max32)
    fail("size " + std::to_string(m.rows) + "x" + std::to_string(m.cols) + " is outside 0..2^31-1");
  if (static_cast<int64_t>(m.rowptr.size()) != m.rows + 1)
    fail("rowptr has " + std::to_string(m.rowptr.size()) + " entries, expected rows+1 = " +
         std::to_string(m.rows + 1));
  if (m.colidx.size() != m.values.size())
    fail("colidx has " + std::to_string(m.colidx.size()) + " entries but values has " +
         std::to_string(m.values.size()));
  if (m.rowptr[0] != 0 || m.rowptr[m.rows] != m.nnz())
    fail("rowptr must start at 0 and end at nnz = " + std::to_string(m.nnz()));
  for (int64_t i = 0; i < m.rows; ++i) {
    int32_t begin = m.rowptr[i], end = m.rowptr[i + 1];
    if (end < begin || end > m.nnz()) fail("rowptr decreases at row " + std::to_string(i));
    for (int32_t k = begin; k < end; ++k) {
      if (m.colidx[k] < 0 || m.colidx[k] >= m.cols)
        fail("column " + std::to_string(m.colidx[k]) + " in row " + std::to_string(i) +
             " is outside 0.." + std::to_string(m.cols - 1));
      if (k > begin && m.colidx[k] <= m.colidx[k - 1])
        fail("columns of row " + std::to_string(i) + " are not sorted and distinct");
    }
  }
}

CsrMatrix csr_from_coo(int64_t rows, int64_t cols, std::span<const int32_t> row,
                       std::span<const int32_t> col, std::span<const double> val) {
  constexpr int64_t max32 = std::numeric_limits<int32_t>::max();
  if (static_cast<int64_t>(row.size()) > max32)
    throw Error("matrix has more than 2^31-1 entries, which int32 CSR cannot index");
  CsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  // rowptr is the only per-row array (rows may be 2^31): counts, then starts, then (after
  // the scatter has advanced each start) ends, which the compaction below reads.
  std::vector<int32_t>& ptr = m.rowptr;
  ptr.assign(static_cast<size_t>(rows) + 1, 0);
  for (int32_t r : row) ++ptr[static_cast<size_t>(r) + 1];
  for (int64_t i = 0; i < rows; ++i) ptr[i + 1] += ptr[i];
  std::vector<int32_t> c(row.size());
  std::vector<double> v(row.size());
  for (size_t k = 0; k < row.size(); ++k) {
    int32_t at = ptr[row[k]]++;
    c[at] = col[k];
    v[at] = val[k];
  }

  // Sort each row (stable, so duplicates are summed in input order) and compact in place.
  std::vector<std::pair<int32_t, double>> tmp;
  int64_t out = 0, b = 0;
  for (int64_t i = 0; i < rows; ++i) {
    int64_t e = ptr[i];  // the end of row i after the scatter
    if (!std::is_sorted(c.begin() + b, c.begin() + e)) {
      tmp.clear();
      for (int64_t k = b; k < e; ++k) tmp.emplace_back(c[k], v[k]);
      std::stable_sort(tmp.begin(), tmp.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      for (int64_t k = b; k < e; ++k) std::tie(c[k], v[k]) = tmp[k - b];
    }
    for (int64_t k = b; k < e; ++k) {
      if (k > b && c[k] == c[out - 1]) {
        v[out - 1] += v[k];
      } else {
        c[out] = c[k];
        v[out] = v[k];
        ++out;
      }
    }
    b = e;
    ptr[i] = static_cast<int32_t>(out);  // now the new end of row i
  }
  // Ends to starts: shift right by one.
  for (int64_t i = rows; i > 0; --i) ptr[i] = ptr[i - 1];
  ptr[0] = 0;
  c.resize(out);
  v.resize(out);
  c.shrink_to_fit();
  v.shrink_to_fit();
  m.colidx = std::move(c);
  m.values = std::move(v);
  return m;
}

}  // namespace hetbench
