// The device-scalar operations of SolverOps on an OpenCL or CUDA device (docs/solvers.md
// "Device scalars"): scalars in device memory, the axpy whose coefficient is a quotient
// of two of them, and the watch log with its stop flag. VariantOps times and calls them.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "hetbench/device.hpp"
#include "hetbench/solver_ops.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

class DeviceScalars {
 public:
  // The axpy takes the launch shape and parameters of the chosen axpy variant where it is
  // the default one (OpenCL vec, CUDA vec16), else those variants' defaults.
  DeviceScalars(Device& dev, Precision p, std::size_t n, const Variant& axpy, const ParamValues& pv);
  std::unique_ptr<SolverScalar> scalar();
  Buffer& buf(SolverScalar& s);  // throws Error for a scalar made elsewhere
  void axpy_ratio(double sign, SolverScalar& num, SolverScalar& den, Buffer& x, Buffer& y, Buffer& r);
  void watch_start(std::size_t slots);
  void watch(const std::vector<SolverWatch>& w);
  std::vector<double> watch_read(std::size_t n);

 private:
  Device& dev_;
  Precision p_;
  std::size_t n_;
  std::shared_ptr<Program> prog_;
  std::unique_ptr<Buffer> stop_, log_;
  std::unique_ptr<HostMemory> log_host_;
  Dims axpy_global_, axpy_local_;
};

}  // namespace hetbench
