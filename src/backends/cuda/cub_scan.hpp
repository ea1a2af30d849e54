#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "hetbench/precision.hpp"

namespace hetbench {

// CUB DeviceScan::InclusiveSum / ExclusiveSum and DeviceReduce over n elements of S, D
// or I32 (int32 added as uint32: wrap-around), of reduce's kind (0 Sum, 1 TransformReduce
// of squares, 2 its square root, 3 Max). The scan sums x_j or, with `square`, x_j² (through
// a transform iterator); `ldg` loads x through CacheModifiedInputIterator<LOAD_LDG>. With
// temp == nullptr only sets temp_bytes (CUB's two-phase convention).
cudaError_t cub_scan(Precision p, bool exclusive, bool square, bool ldg, void* temp, std::size_t& temp_bytes,
                     const void* x, void* y, std::size_t n, cudaStream_t s);
// Thrust's inclusive_scan / exclusive_scan of the same terms on stream s (its own
// temporary storage in each call).
cudaError_t thrust_scan(Precision p, bool exclusive, bool square, const void* x, void* y, std::size_t n,
                        cudaStream_t s);
cudaError_t cub_reduce(Precision p, int kind, void* temp, std::size_t& temp_bytes, const void* x, void* result,
                       std::size_t n, cudaStream_t s);
// Thrust's reduce / transform_reduce of the same kinds on stream s (Thrust allocates its
// own temporary storage in each call, and returns the result through the host).
cudaError_t thrust_reduce(Precision p, int kind, const void* x, void* result, std::size_t n, cudaStream_t s);

}  // namespace hetbench
