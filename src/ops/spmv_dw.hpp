// SpMV in DF and DD: the problem shared by the S/D and double-word halves of the op, the
// storage of the double-word operands (a matrix-token suffix @aos or @soa), and the
// double-word inputs, reference and per-row bound (derived in docs/validation.md,
// "SpMV in DF and DD").
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "ops/double_word.hpp"
#include "sparse/csr.hpp"

namespace hetbench::spmv_detail {

struct SpmvProblem final : Problem {
  std::shared_ptr<const CsrMatrix> a;
  std::vector<long double> ref, mag;  // per row: reference and |α|Σ|a x| + |β||y0|
  std::vector<quad_t> ref_dw;         // DF, DD: the reference in dw_ref_t (binary128 holds either)
};

// Interleaved (hi, lo) pairs or two planes, for val, x and y alike (the size key "soa").
// Optional: recorded only when the token names it (S and D ignore it); the double-word
// problems always record it, since their kernels read it.
const Axis& spmv_storage_axis();

// "MATRIX[@aos|@soa]" -> the matrix token and the storage index, if named. A suffix is the
// text after the last '@' when it holds letters and digits only (a file name such as
// "m@2.mtx" keeps its '@'); one that names no storage of spmv is bad input.
std::pair<std::string, std::optional<std::size_t>> split_storage(const std::string& token);

// Fills val, x, y, the scalars' words and the reference of a DF or DD problem whose
// matrix, sizes and precision are set.
void build_dw(SpmvProblem& prob, std::uint64_t seed);

Validation validate_dw(const SpmvProblem& prob, const Outputs& out);

}  // namespace hetbench::spmv_detail
