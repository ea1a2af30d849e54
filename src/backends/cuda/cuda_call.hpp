// What a CUDA code variant (cuBLAS, CUB, cuSPARSE) sees: its work goes on the device's
// own stream, so the runner times it with the same events as the JIT kernels.
#pragma once

#include <climits>
#include <cstdint>

#include "backends/cuda/cuda_backend.hpp"
#include "hetbench/code_variant.hpp"

namespace hetbench {

struct CudaCall : CallBase<CudaDevice, BackendKind::Cuda> {
  // Several GPUs share one process: the device is made current before every call.
  void enter() const { dev->activate(); }
  // The vendor libraries take sizes as int.
  int int_size(const std::string& name) const {
    const auto v = size(name);
    if (v > INT32_MAX) throw PointError(fmt::format("{}: {} = {} does not fit the library's int", dev->id(), name, v));
    return static_cast<int>(v);
  }
};

}  // namespace hetbench
