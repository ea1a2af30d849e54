// Matrix Market (.mtx) files: https://math.nist.gov/MatrixMarket/formats.html
#pragma once

#include <string>
#include <vector>
#include <string_view>

#include "sparse/csr.hpp"

namespace hetbench {

// Reads `coordinate` (real, integer, pattern) and `array` (real, integer) matrices that are
// general, symmetric or skew-symmetric. Symmetric files are expanded, duplicates summed,
// pattern values become 1.0. Any problem throws hetbench::InputError as "path:line: why".
// What departs from the specification harmlessly and scipy.io.mmread or fast_matrix_market
// read anyway is read too (docs/matrix-market.md), with one warning per kind, "path:line:
// what", appended to `warnings`, or printed on stderr ("hetbench: warning: ...") without.
CsrMatrix read_matrix_market(const std::string& path, std::vector<std::string>* warnings = nullptr);
// The same parse of a file's text held in memory; `name` stands for the path in messages
// (the fuzz target fuzz/targets/matrix_market.cpp feeds it).
CsrMatrix read_matrix_market_text(std::string_view text, const std::string& name,
                                  std::vector<std::string>* warnings = nullptr);

// Writes `coordinate real general` with 17 significant digits, so a read gives back the
// same matrix bit for bit.
void write_matrix_market(const CsrMatrix& m, const std::string& path);

}  // namespace hetbench
