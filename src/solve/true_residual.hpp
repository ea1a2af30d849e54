// The final true residual ||b − A·x||₂ of a solve, computed on the host against the
// bound its precision allows (docs/validation.md, "Solvers").
#pragma once

#include <string>
#include <vector>

#include "hetbench/precision.hpp"
#include "solve/refine.hpp"
#include "sparse/csr.hpp"

namespace hetbench {

struct TrueResidual {
  double norm = 0, rel = 0;  // ||b − A·x||₂ and that over ||b||₂
  double rel_bound = 0;      // what the precision allows, relative to ||b||₂
  std::string bound;         // the bound in words
  bool within() const { return rel <= rel_bound; }
};

// A Krylov solve in precision p (S, D) that stopped at ||r_k|| <= tol·||b|| after k
// iterations; x.lo is empty.
TrueResidual krylov_true_residual(const CsrMatrix& a, const std::vector<double>& b, const DwVector& x, Precision p,
                                  double tol, long iterations);
// Refinement with its residuals in the double-word precision w (DF, DD).
TrueResidual refined_true_residual(const CsrMatrix& a, const std::vector<double>& b, const DwVector& x, Precision w,
                                   double tol);

}  // namespace hetbench
