#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "hetbench/precision.hpp"

namespace hetbench {

// CUB DeviceScan::InclusiveSum / ExclusiveSum and DeviceReduce::Sum over n elements of
// S, D or I32 (int32 added as uint32: wrap-around). With temp == nullptr only sets
// temp_bytes (CUB's two-phase convention).
cudaError_t cub_scan(Precision p, bool exclusive, void* temp, std::size_t& temp_bytes, const void* x, void* y,
                     std::size_t n, cudaStream_t s);
cudaError_t cub_reduce(Precision p, void* temp, std::size_t& temp_bytes, const void* x, void* result, std::size_t n,
                       cudaStream_t s);

}  // namespace hetbench
