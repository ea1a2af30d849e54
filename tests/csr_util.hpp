// A CSR matrix spelled out, for tests that compare what a reader built.
#pragma once

#include <cstdint>
#include <vector>

#include "sparse/csr.hpp"

namespace hetbench::test {

inline CsrMatrix csr(int64_t rows, int64_t cols, std::vector<int32_t> rowptr, std::vector<int32_t> colidx,
                     std::vector<double> values) {
  CsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.rowptr = std::move(rowptr);
  m.colidx = std::move(colidx);
  m.values = std::move(values);
  return m;
}

}  // namespace hetbench::test
