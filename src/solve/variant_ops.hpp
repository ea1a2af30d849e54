// SolverOps on one device from the op variants' own kernels (axpy, dot, spmv): the same
// variants `hetbench run` measures, prepared once per operand combination on buffers
// that stay on the device, their coefficients changed between runs (set_kernel_scalar).
#pragma once

#include <memory>
#include <string>

#include "hetbench/device.hpp"
#include "hetbench/solver_ops.hpp"
#include "sparse/csr.hpp"

namespace hetbench {

// Which variant runs each kernel: names as `hetbench list` shows them (without the
// backend/op prefix); empty: the backend's default (default_solver_variant).
struct SolverVariants {
  std::string spmv, dot, axpy;
};
std::string default_solver_variant(BackendKind b, const std::string& op);

// Throws Error when the device cannot run the precision or a chosen variant, (Jacobi)
// when a diagonal entry is zero or missing, naming the row, and (ILU(0)) where no vendor
// library provides it or it breaks down.
//
// halo > 0: `a` is a rank's rows of a distributed matrix, a->cols = a->rows + halo, its
// columns renumbered to read x as [own block | halo] (src/mpi/partition.hpp). Every
// vector then has room for the halo after its a->rows elements, which the kernels other
// than the SpMV never touch; the caller fills it (solver_buffer) before apply().
std::unique_ptr<SolverOps> make_variant_ops(Device& dev, std::shared_ptr<const CsrMatrix> a, Precision p,
                                            const SolverVariants& v, Preconditioner m, std::size_t halo = 0);
// The device buffer of a vector of make_variant_ops' operators: rows() elements, then the halo.
Buffer& solver_buffer(SolverVector& v);

// The Jacobi preconditioner as a diagonal CSR matrix of 1/a_ii (applied by the SpMV
// kernel); throws Error naming the first row whose diagonal is zero or absent.
CsrMatrix jacobi_inverse(const CsrMatrix& a);

}  // namespace hetbench
