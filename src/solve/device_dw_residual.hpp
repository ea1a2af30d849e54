// The refinement's double words on the inner solve's device (kernels/portable/solve/
// dw_refine.k): b, x and r stay in device buffers, the right-hand side and the correction
// are read and written in the inner solve's own vectors, and only the norm's per-group
// partial sums cross to the host between the steps. A 7-million-row Poisson system moved
// about 110 MB each way per step through the host before (docs/performance-log.md).
#pragma once

#include <memory>
#include <vector>

#include "hetbench/device.hpp"
#include "solve/refine.hpp"

namespace hetbench {

// `dev` must be ops.device() and have binary64 (b, the scale and the norm are doubles);
// throws Error otherwise, or for a precision other than DF and DD.
std::unique_ptr<DwResidual> device_dw_residual(Device& dev, std::shared_ptr<const CsrMatrix> a, Precision p,
                                               SolverOps& ops, const std::vector<double>& b);

}  // namespace hetbench
