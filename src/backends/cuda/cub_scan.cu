// CUB baselines for scan and reduce (compiled by nvcc): DeviceScan::InclusiveSum /
// ExclusiveSum, and DeviceReduce's Sum, TransformReduce (squares) and Max, as cub_dot.cu
// is for dot; Thrust's scans, reduce and transform_reduce beside them. I32 goes through
// them as unsigned int, the wrap-around arithmetic the ops specify, and as int for the
// maximum.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/iterator/cache_modified_input_iterator.cuh>
#include <cuda/functional>
#include <thrust/execution_policy.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform_reduce.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "backends/cuda/cub_scan.hpp"

namespace hetbench {

namespace {

template <class T>
struct Square {
  __host__ __device__ T operator()(T v) const { return v * v; }
};

template <class T, class In>
cudaError_t scan_from(bool exclusive, void* temp, std::size_t& temp_bytes, In in, T* out, std::size_t n,
                      cudaStream_t s) {
  return exclusive ? cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n, s)
                   : cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n, s);
}

// The input as CUB's scan study built it: the pointer itself, or through a
// CacheModifiedInputIterator<LOAD_LDG> (ldg = true: loads through the read-only data
// cache, which CUB picks by itself only for a plain pointer), and for @square a
// TransformInputIterator of squares over either (thrust::transform_iterator, CCCL 3's
// spelling of it).
template <class T, class In>
cudaError_t scan_terms(bool exclusive, bool square, void* temp, std::size_t& temp_bytes, In in, T* out,
                       std::size_t n, cudaStream_t s) {
  if (square)
    return scan_from(exclusive, temp, temp_bytes, thrust::make_transform_iterator(in, Square<T>{}), out, n, s);
  return scan_from(exclusive, temp, temp_bytes, in, out, n, s);
}

template <class T>
cudaError_t scan(bool exclusive, bool square, bool ldg, void* temp, std::size_t& temp_bytes, const void* x, void* y,
                 std::size_t n, cudaStream_t s) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(y);
  if (ldg)
    return scan_terms(exclusive, square, temp, temp_bytes, cub::CacheModifiedInputIterator<cub::LOAD_LDG, T>(in), out,
                      n, s);
  return scan_terms(exclusive, square, temp, temp_bytes, in, out, n, s);
}

template <class T>
__global__ void square_root(T* r) {
  *r = sqrt(*r);
}

// kind: 0 sum, 1 sum of squares, 2 its square root, 3 maximum (ops/reduce.cpp).
template <class T>
cudaError_t reduce(int kind, void* temp, std::size_t& temp_bytes, const void* x, void* result, std::size_t n,
                   cudaStream_t s) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(result);
  if (kind == 3) return cub::DeviceReduce::Max(temp, temp_bytes, in, out, n, s);
  if (kind == 0) return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, s);
  const cudaError_t e =
      cub::DeviceReduce::TransformReduce(temp, temp_bytes, in, out, n, cuda::std::plus<T>{}, Square<T>{}, T(0), s);
  if constexpr (std::is_floating_point_v<T>)
    if (e == cudaSuccess && temp && kind == 2) {
      square_root<<<1, 1, 0, s>>>(out);
      return cudaGetLastError();
    }
  return e;
}

// Thrust returns the result to the host (a synchronisation, as its users pay); it goes
// back into the result array for validation.
template <class T>
cudaError_t thrust_reduce_as(int kind, const void* x, void* result, std::size_t n, cudaStream_t s) {
  const T* in = static_cast<const T*>(x);
  const auto policy = thrust::cuda::par.on(s);
  T r;
  if (kind == 3) r = thrust::reduce(policy, in, in + n, std::numeric_limits<T>::lowest(), cuda::maximum<T>());
  else if (kind == 0) r = thrust::reduce(policy, in, in + n, T(0));
  else r = thrust::transform_reduce(policy, in, in + n, Square<T>{}, T(0), cuda::std::plus<T>());
  if constexpr (std::is_floating_point_v<T>)
    if (kind == 2) r = std::sqrt(r);
  return cudaMemcpyAsync(result, &r, sizeof(T), cudaMemcpyHostToDevice, s);
}

// Thrust's inclusive_scan / exclusive_scan, over a transform_iterator of squares for
// @square; Thrust allocates its temporary storage in the call.
template <class T, class In>
void thrust_scan_from(bool exclusive, In in, T* out, std::size_t n, cudaStream_t s) {
  const auto policy = thrust::cuda::par.on(s);
  if (exclusive) thrust::exclusive_scan(policy, in, in + n, out, T(0));
  else thrust::inclusive_scan(policy, in, in + n, out);
}

template <class T>
cudaError_t thrust_scan_as(bool exclusive, bool square, const void* x, void* y, std::size_t n, cudaStream_t s) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(y);
  if (square) thrust_scan_from(exclusive, thrust::make_transform_iterator(in, Square<T>{}), out, n, s);
  else thrust_scan_from(exclusive, in, out, n, s);
  return cudaGetLastError();
}

}  // namespace

cudaError_t cub_scan(Precision p, bool exclusive, bool square, bool ldg, void* temp, std::size_t& temp_bytes,
                     const void* x, void* y, std::size_t n, cudaStream_t s) {
  switch (p) {
    case Precision::D: return scan<double>(exclusive, square, ldg, temp, temp_bytes, x, y, n, s);
    case Precision::I32: return scan<unsigned>(exclusive, square, ldg, temp, temp_bytes, x, y, n, s);
    default: return scan<float>(exclusive, square, ldg, temp, temp_bytes, x, y, n, s);
  }
}

cudaError_t thrust_scan(Precision p, bool exclusive, bool square, const void* x, void* y, std::size_t n,
                        cudaStream_t s) {
  switch (p) {
    case Precision::D: return thrust_scan_as<double>(exclusive, square, x, y, n, s);
    case Precision::I32: return thrust_scan_as<unsigned>(exclusive, square, x, y, n, s);
    default: return thrust_scan_as<float>(exclusive, square, x, y, n, s);
  }
}

cudaError_t cub_reduce(Precision p, int kind, void* temp, std::size_t& temp_bytes, const void* x, void* result,
                       std::size_t n, cudaStream_t s) {
  switch (p) {
    case Precision::D: return reduce<double>(kind, temp, temp_bytes, x, result, n, s);
    case Precision::I32:
      return kind == 3 ? reduce<int>(kind, temp, temp_bytes, x, result, n, s)
                       : reduce<unsigned>(kind, temp, temp_bytes, x, result, n, s);
    default: return reduce<float>(kind, temp, temp_bytes, x, result, n, s);
  }
}

cudaError_t thrust_reduce(Precision p, int kind, const void* x, void* result, std::size_t n, cudaStream_t s) {
  switch (p) {
    case Precision::D: return thrust_reduce_as<double>(kind, x, result, n, s);
    case Precision::I32:
      return kind == 3 ? thrust_reduce_as<int>(kind, x, result, n, s) : thrust_reduce_as<unsigned>(kind, x, result, n, s);
    default: return thrust_reduce_as<float>(kind, x, result, n, s);
  }
}

}  // namespace hetbench
