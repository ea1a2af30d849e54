// Departures from the Matrix Market specification that the widely used readers
// (scipy.io.mmread, fast_matrix_market) accept and hetbench reads too, each with a
// warning; docs/matrix-market.md has the table and the source lines it rests on.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sparse/csr.hpp"

namespace hetbench::mm {

enum class Departure {
  banner_spelling,   // %%matrixmarket: not the banner's case
  single_percent,    // %MatrixMarket
  byte_order_mark,
  banner_indent,     // blanks before the banner
  banner_extra,      // words after the four qualifiers
  word_case,         // MATRIX, Coordinate, ...
  field_double,      // field "double"
  field_unsigned,    // field "unsigned-integer" (scipy's extension)
  crlf,
  blank_line,        // before the last entry
  body_comment,      // a comment line after the size line
  pattern_value,     // a value after a pattern entry's indices
  trailing_comment,  // "% ..." after an entry
  integer_as_real,   // "2.0" in an integer file
  upper_triangle,    // an entry above the diagonal of a symmetric file
  skew_zero_diagonal,
  duplicates,
  count_
};

// The warnings of one file: the first of each kind as "path:line: what", into `sink`, or
// on stderr as "hetbench: warning: ..." without one; later ones of a kind are not said.
class Departures {
 public:
  Departures(const std::string& path, std::vector<std::string>* sink) : path_(path), sink_(sink) {}
  void note(Departure d, int64_t line, const std::string& what);

 private:
  const std::string& path_;
  std::vector<std::string>* sink_;
  bool said_[static_cast<int>(Departure::count_)] = {};
};

// The first push, in file order, whose (row, column) an earlier push already had, given
// the CSR `m` built from the pushes (row[k], col[k]). In a symmetric file every
// off-diagonal entry is followed by its mirror; a mirror meeting an entry as written means
// the file gave both triangles, which `clash` reports (and which the scan prefers: the
// readers would double those values).
struct Repeat {
  std::size_t push = 0;
  bool clash = false;
};
std::optional<Repeat> first_repeat(const CsrMatrix& m, std::span<const int32_t> row, std::span<const int32_t> col,
                                   bool symmetric);

// The index of the entry (data line) that push k came from.
std::size_t entry_of_push(std::span<const int32_t> row, std::span<const int32_t> col, bool symmetric, std::size_t k);

}  // namespace hetbench::mm
