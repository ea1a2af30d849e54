// Mixed-precision iterative refinement (Wilkinson; Moler 1967; Carson & Higham 2018):
// the correction equation A·d = r solved by a Krylov method in S or D on the device,
// the residual r = b − A·x and the update x += d in a double-word precision (DF or DD),
// the solution held in double words. The double words live behind DwResidual: on the
// inner solve's device where it has binary64 (device_dw_residual.hpp), so that nothing
// crosses the host link between the steps, else on the host.
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

// b, x and r in double words, and the refinement's kernels on them. x starts at 0.
class DwResidual {
 public:
  virtual ~DwResidual() = default;
  virtual Precision precision() const = 0;  // DF or DD
  virtual const char* where() const = 0;    // "host" or "device", for the record
  // r = b − A·x, each row's sum in the double-word precision, r rounded to words;
  // returns ||r||₂ (in long double on the host, in double on a device: it only steers).
  virtual double residual() = 0;
  // rhs = r / scale rounded to the inner precision: a vector of the inner solve's `ops`.
  virtual void right_hand_side(double scale, SolverVector& rhs) = 0;
  // x += scale·d in the double-word precision, d a vector of `ops`.
  virtual void update(SolverVector& d, double scale) = 0;
  virtual DwVector solution() = 0;  // x, read back once, when the refinement ends
};
// On the host (OpenMP over rows), A's values rounded to the precision (DF: hi + lo floats;
// DD: A's doubles read in place, their lo words 0); vectors cross to `ops` by upload and
// download. Throws Error for a precision other than DF and DD.
std::unique_ptr<DwResidual> host_dw_residual(std::shared_ptr<const CsrMatrix> a, Precision p, SolverOps& ops,
                                             const std::vector<double>& b);
// On ops' device when it keeps its vectors in device buffers and has binary64, else on the host.
std::unique_ptr<DwResidual> make_dw_residual(std::shared_ptr<const CsrMatrix> a, Precision p, SolverOps& ops,
                                             const std::vector<double>& b);

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
  // Where the wall time went: the inner solves (krylov_solve), the residuals with their
  // norms, the updates of x and the right-hand sides (on the host, with the download and
  // upload that each needs).
  double inner_s = 0, residual_s = 0, update_s = 0, rhs_s = 0;
  std::vector<double> inner_tols;     // each inner solve's reduction
};

// x is left in `res` (res.solution()).
RefineResult refine_solve(SolverOps& ops, DwResidual& res, const RefineOptions& o);

}  // namespace hetbench
