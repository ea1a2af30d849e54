// Mixed-precision iterative refinement (Wilkinson; Moler 1967; Carson & Higham 2018):
// the correction equation A·d = r solved by a Krylov method in S or D on the device,
// the residual r = b − A·x and the update x += d in a double-word precision (DF or DD),
// the solution held in double words. The residual sits behind DwResidual, so that the
// device's DF/DD SpMV replaces the host's loop without touching the refinement.
#pragma once

#include <memory>
#include <vector>

#include "hetbench/solver_ops.hpp"
#include "solve/krylov.hpp"
#include "sparse/csr.hpp"

namespace hetbench {

// A vector of double words as two arrays of doubles (a DF word converts exactly).
struct DwVector {
  std::vector<double> hi, lo;
};

class DwResidual {
 public:
  virtual ~DwResidual() = default;
  virtual Precision precision() const = 0;  // DF or DD
  // r = b − A·x, each row's sum in the double-word precision; r rounded to words. `r` is
  // resized to A's rows and overwritten (its storage reused from step to step).
  virtual void residual(const std::vector<double>& b, const DwVector& x, DwVector& r) = 0;
  // x += d, in the double-word precision.
  virtual void update(DwVector& x, const std::vector<double>& d) = 0;
};
// On the host (OpenMP over rows), A's values rounded to the precision (DF: hi + lo floats;
// DD: A's doubles read in place, their lo words 0).
std::unique_ptr<DwResidual> host_dw_residual(std::shared_ptr<const CsrMatrix> a, Precision p);

struct RefineOptions {
  double tol = 1e-13;       // outer: ||b − A·x|| <= tol·||b||, the residual computed in DF/DD
  int max_outer = 30;
  KrylovOptions inner;      // its tol is the inner solve's relative reduction
  // Above 0: each inner solve's reduction is chosen per step, clamp(tol / ||r_k||/||b||,
  // inner_floor, 0.5): no more than the outer tolerance still needs, and no less than the
  // inner precision resolves (inner.tol is then unused). 0: inner.tol every step.
  double inner_floor = 0;
};

struct RefineResult {
  int outer = 0;
  long inner_iterations = 0;
  StopWhy why = StopWhy::MaxIter;
  std::string detail;
  std::vector<double> history;        // outer: ||r_k||/||b|| as computed in DF/DD
  std::vector<double> inner_history;  // every inner iteration's relative residual, in order
  double residual_s = 0;              // wall time of the residuals and updates
  // The rest of the wall time, split: the inner solves (krylov_solve), the transfers
  // (right-hand side up, correction down, the correction's vector), and the host's
  // norms and scaling.
  double inner_s = 0, transfer_s = 0, host_s = 0;
  std::vector<double> inner_tols;     // each inner solve's reduction
  DwVector x;
};

RefineResult refine_solve(SolverOps& ops, DwResidual& res, const std::vector<double>& b, const RefineOptions& o);

}  // namespace hetbench
