#include "mpi/dist_solver_ops.hpp"

#include <mpi.h>

#include <chrono>

#include <fmt/format.h>

#include "solve/variant_ops.hpp"

namespace hetbench::mpi {

namespace {
template <class F>
double wall(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

void DotReduce::sum(std::vector<double>& partial) {
  MPI_Allreduce(MPI_IN_PLACE, partial.data(), static_cast<int>(partial.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

DistSolverOps::DistSolverOps(std::unique_ptr<SolverOps> local, std::unique_ptr<HaloExchange> halo,
                             std::unique_ptr<DotReduce> reduce)
    : local_(std::move(local)), halo_(std::move(halo)), reduce_(std::move(reduce)) {}

void DistSolverOps::exchange(SolverVector& x) {
  ++halo_calls_;
  // The exchange reads x, which the kernels issued before it write: they finish first.
  auto run = [&] {
    local_->finish();
    halo_->run(solver_buffer(x));
  };
  if (timing_) halo_s_ += wall(run);
  else run();
}

void DistSolverOps::apply(SolverVector& x, SolverVector& y) {
  exchange(x);
  local_->apply(x, y);
}

void DistSolverOps::residual(SolverVector& b, SolverVector& x, SolverVector& r) {
  exchange(x);
  local_->residual(b, x, r);
}

std::vector<double> DistSolverOps::dots(const std::vector<std::pair<SolverVector*, SolverVector*>>& pairs) {
  // The partial products are rounded to the working precision before the sum, as one
  // device's dot kernel rounds its partial sums (docs/validation.md, "Distributed ops").
  auto d = local_->dots(pairs);
  if (timing_) reduce_s_ += wall([&] { reduce_->sum(d); });
  else reduce_->sum(d);
  return d;
}

void DistSolverOps::time_kernels(bool on) {
  timing_ = on;
  local_->time_kernels(on);
}

const KernelTimes& DistSolverOps::times() const {
  times_ = local_->times();
  times_.seconds[static_cast<int>(SolverKernel::Dot)] += reduce_s_;
  return times_;
}

void DistSolverOps::reset_times() {
  local_->reset_times();
  halo_s_ = reduce_s_ = 0;
  halo_calls_ = 0;
}

std::string DistSolverOps::transport() const {
  return fmt::format("halo: {}; dots: {}", halo_->transport(), reduce_->transport());
}

std::vector<std::string> DistSolverOps::kernels() const {
  auto k = local_->kernels();
  k.push_back(transport());
  return k;
}

}  // namespace hetbench::mpi
