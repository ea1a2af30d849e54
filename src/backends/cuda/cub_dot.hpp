#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace hetbench {

// With temp == nullptr only sets temp_bytes (CUB's two-phase convention).
cudaError_t cub_dot(bool dbl, void* temp, std::size_t& temp_bytes, const void* x, const void* y, void* result,
                    std::size_t n, cudaStream_t s);

}  // namespace hetbench
