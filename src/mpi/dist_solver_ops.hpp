// SolverOps over the ranks (docs/mpi.md, "Distributed solvers"): the rank's rows through
// the single-device operators of src/solve/variant_ops (its own SpMV, dot, axpy and Jacobi
// kernels on its device), with the two things a distributed operator adds: the halo of x
// exchanged before each product, and each dot's partial sums reduced over the ranks. The
// Krylov methods of src/solve/krylov.cpp run on it unchanged.
#pragma once

#include <memory>

#include "hetbench/solver_ops.hpp"
#include "mpi/halo.hpp"

namespace hetbench::mpi {

// Sums partial dots over the ranks (MPI_Allreduce, or NCCL on device buffers).
class DotReduce {
 public:
  virtual ~DotReduce() = default;
  virtual void sum(std::vector<double>& partial);  // MPI_Allreduce in place
  virtual std::string transport() const { return "mpi"; }
};

class DistSolverOps final : public SolverOps {
 public:
  DistSolverOps(std::unique_ptr<SolverOps> local, std::unique_ptr<HaloExchange> halo, std::unique_ptr<DotReduce> reduce);

  std::size_t rows() const override { return local_->rows(); }
  Precision precision() const override { return local_->precision(); }
  std::unique_ptr<SolverVector> vector() override { return local_->vector(); }
  void upload(SolverVector& v, const std::vector<double>& h) override { local_->upload(v, h); }
  std::vector<double> download(SolverVector& v) override { return local_->download(v); }
  void copy(SolverVector& s, SolverVector& d) override { local_->copy(s, d); }
  void apply(SolverVector& x, SolverVector& y) override;
  void residual(SolverVector& b, SolverVector& x, SolverVector& r) override;
  void precondition(SolverVector& r, SolverVector& z) override { local_->precondition(r, z); }
  double dot(SolverVector& x, SolverVector& y) override { return dots({{&x, &y}})[0]; }
  std::vector<double> dots(const std::vector<std::pair<SolverVector*, SolverVector*>>& pairs) override;
  void axpy(double a, SolverVector& x, SolverVector& y, SolverVector& r) override { local_->axpy(a, x, y, r); }
  void time_kernels(bool on) override;
  // The local kernels' device times, the dots' with their reduction's wall time added.
  const KernelTimes& times() const override;
  void reset_times() override;
  void finish() override { local_->finish(); }
  std::vector<std::string> kernels() const override;

  // Wall seconds in the halo exchange and in the dots' reductions, while timing is on.
  double halo_seconds() const { return halo_s_; }
  double reduce_seconds() const { return reduce_s_; }
  long long halo_calls() const { return halo_calls_; }
  const HaloExchange& halo() const { return *halo_; }
  std::string transport() const;

 private:
  void exchange(SolverVector& x);
  std::unique_ptr<SolverOps> local_;
  std::unique_ptr<HaloExchange> halo_;
  std::unique_ptr<DotReduce> reduce_;
  bool timing_ = false;
  double halo_s_ = 0, reduce_s_ = 0;
  long long halo_calls_ = 0;
  mutable KernelTimes times_;
};

}  // namespace hetbench::mpi
