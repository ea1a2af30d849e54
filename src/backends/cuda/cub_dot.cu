// CUB baseline for dot: DeviceReduce::TransformReduce over i -> x[i]*y[i]. Compiled by
// nvcc (sm_90); the C++ side sees only these two plain functions.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <cstddef>

#include "backends/cuda/cub_dot.hpp"

namespace hetbench {

namespace {

template <class T>
struct Product {
  const T* x;
  const T* y;
  __host__ __device__ T operator()(std::size_t i) const { return x[i] * y[i]; }
};

template <class T>
cudaError_t run(void* temp, std::size_t& temp_bytes, const void* x, const void* y, void* result, std::size_t n,
                cudaStream_t s) {
  thrust::counting_iterator<std::size_t> first(0);
  return cub::DeviceReduce::TransformReduce(temp, temp_bytes, first, static_cast<T*>(result), n,
                                            cuda::std::plus<T>{},
                                            Product<T>{static_cast<const T*>(x), static_cast<const T*>(y)}, T(0), s);
}

}  // namespace

cudaError_t cub_dot(bool dbl, void* temp, std::size_t& temp_bytes, const void* x, const void* y, void* result,
                    std::size_t n, cudaStream_t s) {
  return dbl ? run<double>(temp, temp_bytes, x, y, result, n, s) : run<float>(temp, temp_bytes, x, y, result, n, s);
}

}  // namespace hetbench
