// Compressed sparse row matrices, the input of the SpMV op, and their summary features.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace hetbench {

// Column indices are sorted (and distinct) within each row; rowptr has rows+1 entries.
// int32 indices keep the device kernels simple, so rows, cols and nnz all fit int32.
struct CsrMatrix {
  int64_t rows = 0, cols = 0;
  std::vector<int32_t> rowptr;
  std::vector<int32_t> colidx;
  std::vector<double> values;

  int64_t nnz() const { return static_cast<int64_t>(values.size()); }
  friend bool operator==(const CsrMatrix&, const CsrMatrix&) = default;
};

struct MatrixFeatures {
  int64_t rows = 0, cols = 0, nnz = 0;
  int64_t row_min = 0, row_max = 0;
  double row_mean = 0, row_std = 0;
  int64_t bandwidth = 0;  // max |i-j| over entries
  int64_t bytes = 0;      // CSR bytes for binary64 values + int32 indices + rowptr
};

MatrixFeatures matrix_features(const CsrMatrix& m);
nlohmann::json to_json(const MatrixFeatures& f);

// Throws hetbench::Error naming the first defect (sizes, rowptr, unsorted or out-of-range
// columns); `what` names the matrix in the message.
void check_csr(const CsrMatrix& m, const char* what = "matrix");

// Builds a CSR matrix from coordinate triplets (0-based, already range-checked): counts
// rows, scatters, sorts each row and sums duplicates in input order. Throws
// hetbench::Error if the result has more than INT32_MAX entries.
CsrMatrix csr_from_coo(int64_t rows, int64_t cols, std::span<const int32_t> row,
                       std::span<const int32_t> col, std::span<const double> val);

}  // namespace hetbench
