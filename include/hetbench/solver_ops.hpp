// The operator interface the Krylov solvers (src/solve/krylov.cpp) are written over: a
// linear operator A, a preconditioner M⁻¹ and the vector kernels, on vectors that the
// implementation creates and keeps where its kernels run (device buffers, or a rank's
// block of a distributed vector). docs/solvers.md says what an implementation owes.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hetbench/device.hpp"
#include "hetbench/precision.hpp"

namespace hetbench {

// An opaque vector of the operator's length (this rank's rows under MPI), created by the
// implementation and handed back to it only.
class SolverVector {
 public:
  virtual ~SolverVector() = default;
};

// A scalar kept where the kernels run (a dot product's result), so that a coefficient
// reaches the next kernel without a trip through the host. Opaque like SolverVector.
class SolverScalar {
 public:
  virtual ~SolverScalar() = default;
};

// What a watch checks of a scalar s; when the check fails, the implementation's stop flag
// is set and every later axpy_ratio leaves its output equal to y (the solve is frozen).
enum class SolverGuard {
  NotPositive,      // stops when !(s > 0): a breakdown (NaN included)
  SqrtAtMostBound,  // stops when s is not finite or sqrt(s) <= bound: convergence on s = r·r
};
struct SolverWatch {
  SolverScalar* s = nullptr;
  SolverGuard guard = SolverGuard::NotPositive;
  double bound = 0;
  std::size_t slot = 0;  // s is logged (as a double) at this index of the watch log
};

// What the solvers' inner loop spends its time in, as the record splits it.
enum class SolverKernel { SpMV, Dot, Axpy, Precond };
inline constexpr std::array<SolverKernel, 4> kSolverKernels{SolverKernel::SpMV, SolverKernel::Dot, SolverKernel::Axpy,
                                                            SolverKernel::Precond};
inline const char* to_string(SolverKernel k) {
  constexpr const char* names[] = {"spmv", "dot", "axpy", "precond"};
  return names[static_cast<int>(k)];
}

// Device time per kernel kind (seconds, from the device's own timer) and calls.
struct KernelTimes {
  std::array<double, 4> seconds{};
  std::array<long long, 4> calls{};
  double total() const { return seconds[0] + seconds[1] + seconds[2] + seconds[3]; }
};

class SolverOps {
 public:
  virtual ~SolverOps() = default;
  virtual std::size_t rows() const = 0;  // this rank's rows (the whole system on one device)
  virtual Precision precision() const = 0;
  // A new vector, every element 0.
  virtual std::unique_ptr<SolverVector> vector() = 0;
  // Host values in double (rounded to the precision) to and from a vector: set-up and
  // results only, never inside an iteration.
  virtual void upload(SolverVector& v, const std::vector<double>& host) = 0;
  virtual std::vector<double> download(SolverVector& v) = 0;
  virtual void copy(SolverVector& src, SolverVector& dst) = 0;
  // The device and the buffer that hold a vector, for an implementation that keeps each
  // vector in one buffer of one device (its rows() elements of the precision first); null
  // otherwise. The refinement's double-word kernels read and write the inner solve's
  // vectors there (src/solve/device_dw_residual.cpp).
  virtual Device* device() { return nullptr; }
  virtual Buffer* buffer(SolverVector&) { return nullptr; }

  // y = A·x (y distinct from x).
  virtual void apply(SolverVector& x, SolverVector& y) = 0;
  // r = b − A·x (r distinct from b and x).
  virtual void residual(SolverVector& b, SolverVector& x, SolverVector& r) = 0;
  // z = M⁻¹·r (z distinct from r); the identity when there is no preconditioner.
  virtual void precondition(SolverVector& r, SolverVector& z) = 0;
  // x·y over the whole vector (every rank's part: an implementation over MPI reduces).
  virtual double dot(SolverVector& x, SolverVector& y) = 0;
  // Several dot products at once: an implementation issues them all and waits once (one
  // read-back, or one reduction over the ranks) rather than once per product.
  virtual std::vector<double> dots(const std::vector<std::pair<SolverVector*, SolverVector*>>& pairs) {
    std::vector<double> out;
    for (const auto& [x, y] : pairs) out.push_back(dot(*x, *y));
    return out;
  }
  // r = a·x + y, r distinct from x and y (the kernels declare their pointers restrict).
  virtual void axpy(double a, SolverVector& x, SolverVector& y, SolverVector& r) = 0;

  // Device scalars (docs/solvers.md, "Device scalars"): the pipelined CG issues a window
  // of iterations without waiting and reads their logged scalars back once. The defaults
  // below keep the scalars on the host: dot_to is deferred until a scalar is used, and
  // the deferred products are then read back together by dots() (one wait).
  virtual std::unique_ptr<SolverScalar> scalar();
  // s = x·y, issued (not waited for).
  virtual void dot_to(SolverVector& x, SolverVector& y, SolverScalar& s);
  // r = (sign·(num/den))·x + y with the quotient formed where the kernels run (sign ±1);
  // r = y once the stop flag is set. r distinct from x and y.
  virtual void axpy_ratio(double sign, SolverScalar& num, SolverScalar& den, SolverVector& x, SolverVector& y,
                          SolverVector& r);
  // Clears the stop flag and makes room for `slots` logged values.
  virtual void watch_start(std::size_t slots);
  // Logs each watched scalar and sets the stop flag when its guard fails.
  virtual void watch(const std::vector<SolverWatch>& w);
  // Waits, and returns the first n logged values.
  virtual std::vector<double> watch_read(std::size_t n);
  // True when the implementation knows without waiting that the stop flag is set (the
  // host defaults do; a device does not, and computes frozen iterations to the window's end).
  virtual bool watch_stopped() const { return watch_stopped_; }

  // Kernel timing: while on, every kernel call is timed by the device's events (and so
  // waited for); off, calls are only issued, and a whole solve is timed from outside.
  virtual void time_kernels(bool on) = 0;
  virtual const KernelTimes& times() const = 0;
  virtual void reset_times() = 0;
  // Waits for the work issued.
  virtual void finish() = 0;
  // What implements each kernel ("opencl/spmv/vector WG=128", "cuSPARSE SpMV"), for the record.
  virtual std::vector<std::string> kernels() const = 0;

 protected:
  // State of the host defaults of the device-scalar operations.
  void flush_deferred_dots();
  std::vector<SolverScalar*> deferred_;
  std::vector<double> watch_log_;
  bool watch_stopped_ = false;
};

struct CsrMatrix;

// The preconditioners of `hetbench solve --precond`: none, Jacobi (diag(A)^-1, on every
// device), and ILU(0), the incomplete LU factorisation without fill, from a vendor library
// where one provides it (CUDA: cuSPARSE's csrilu02 and SpSV triangular solves).
enum class Preconditioner { None, Jacobi, Ilu0 };
const char* to_string(Preconditioner m);
Preconditioner parse_preconditioner(const std::string& s);  // throws Error naming the value

// Operators made from a vendor library rather than hetbench's kernels (the baseline of
// `hetbench solve --baseline vendor`: cuSPARSE SpMV with cuBLAS dot and axpy on CUDA).
// A backend registers its factory from its own source file.
using VendorSolverFactory =
    std::function<std::unique_ptr<SolverOps>(Device&, std::shared_ptr<const CsrMatrix>, Precision, Preconditioner)>;
void register_vendor_solver_ops(BackendKind backend, VendorSolverFactory make);
// Empty when the backend registered none.
VendorSolverFactory vendor_solver_ops(BackendKind backend);

// ILU(0) of A factored once by a vendor library, applied as z = U^-1·L^-1·r on device
// buffers of the precision (S or D) with rows(A) elements.
class VendorIlu0 {
 public:
  virtual ~VendorIlu0() = default;
  virtual void apply(Buffer& r, Buffer& z) = 0;
  virtual std::string name() const = 0;  // what implements it, for the record
};
// Throws Error for a matrix the factorisation breaks down on (a zero pivot, naming its row).
using VendorIlu0Factory = std::function<std::unique_ptr<VendorIlu0>(Device&, const CsrMatrix&, Precision)>;
void register_vendor_ilu0(BackendKind backend, VendorIlu0Factory make);
// Throws Error naming the device when its backend registered none.
std::unique_ptr<VendorIlu0> make_vendor_ilu0(Device& dev, const CsrMatrix& a, Precision p);

}  // namespace hetbench
