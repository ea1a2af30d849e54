#include <cstdlib>
#include <string>
#include <vector>

#include "io/matrix_market.hpp"
#include "hetbench/error.hpp"
#include "targets/targets.hpp"

namespace hetbench::fuzz {

namespace {

// The row count on the size line (the first line after the banner that is neither blank
// nor a comment), or 0. A 20-byte file may declare 2^31-1 rows: CSR then needs 8 GiB of
// row pointers, which is the matrix's due and not a parser fault, so such inputs are
// left out rather than reported by the fuzzer's memory limit.
long long declared_rows(std::string_view data) {
  std::size_t p = data.find('\n');
  while (p != std::string_view::npos && p + 1 < data.size()) {
    std::size_t b = data.find_first_not_of(" \t\r\v\f", p + 1), e = data.find('\n', p + 1);
    if (b != std::string_view::npos && b < e && data[b] != '%' && data[b] != '\n')
      return std::strtoll(std::string(data.substr(b, e - b)).c_str(), nullptr, 10);
    p = e;
  }
  return 0;
}

}  // namespace

void matrix_market(std::string_view data) {
  if (declared_rows(data) > (1 << 22)) return;
  CsrMatrix m;
  try {
    std::vector<std::string> warnings;  // kept off stderr: it would slow the fuzzer
    m = read_matrix_market_text(data, "fuzz.mtx", &warnings);
  } catch (const Error&) {
    return;
  }
  // What the reader accepts must be a well-formed CSR matrix: a defect here is the
  // reader's, so it aborts rather than counting as a refusal.
  try {
    check_csr(m, "the matrix read");
  } catch (const Error&) {
    __builtin_trap();
  }
}

}  // namespace hetbench::fuzz
