// CUB baselines for scan and reduce (compiled by nvcc): DeviceScan::InclusiveSum /
// ExclusiveSum and DeviceReduce::Sum, as cub_dot.cu is for dot. I32 goes through CUB as
// unsigned int, the wrap-around addition the ops specify.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cstddef>

#include "backends/cuda/cub_scan.hpp"

namespace hetbench {

namespace {

template <class T>
cudaError_t scan(bool exclusive, void* temp, std::size_t& temp_bytes, const void* x, void* y, std::size_t n,
                 cudaStream_t s) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(y);
  return exclusive ? cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n, s)
                   : cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n, s);
}

template <class T>
cudaError_t reduce(void* temp, std::size_t& temp_bytes, const void* x, void* result, std::size_t n, cudaStream_t s) {
  return cub::DeviceReduce::Sum(temp, temp_bytes, static_cast<const T*>(x), static_cast<T*>(result), n, s);
}

}  // namespace

cudaError_t cub_scan(Precision p, bool exclusive, void* temp, std::size_t& temp_bytes, const void* x, void* y,
                     std::size_t n, cudaStream_t s) {
  switch (p) {
    case Precision::D: return scan<double>(exclusive, temp, temp_bytes, x, y, n, s);
    case Precision::I32: return scan<unsigned>(exclusive, temp, temp_bytes, x, y, n, s);
    default: return scan<float>(exclusive, temp, temp_bytes, x, y, n, s);
  }
}

cudaError_t cub_reduce(Precision p, void* temp, std::size_t& temp_bytes, const void* x, void* result, std::size_t n,
                       cudaStream_t s) {
  switch (p) {
    case Precision::D: return reduce<double>(temp, temp_bytes, x, result, n, s);
    case Precision::I32: return reduce<unsigned>(temp, temp_bytes, x, result, n, s);
    default: return reduce<float>(temp, temp_bytes, x, result, n, s);
  }
}

}  // namespace hetbench
