#include "mpi/buffer_range.hpp"

#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#ifdef HETBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace hetbench::mpi {

namespace {

void check(const Buffer& b, std::size_t offset, std::size_t bytes) {
  if (offset > b.bytes() || bytes > b.bytes() - offset)
    throw Error(fmt::format("internal: bytes [{}, {}) of a buffer of {}", offset, offset + bytes, b.bytes()));
}

#ifdef HETBENCH_HAVE_CUDA
void cuda_copy(Device& dev, void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind) {
  // The device's own stream is finished before a halo exchange (DistSolverOps::exchange);
  // the copy is made, and finished, on the device's legacy stream.
  auto ok = [&](cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw Error(fmt::format("{} on {}: {}", what, dev.id(), cudaGetErrorString(e)));
  };
  ok(cudaSetDevice(std::stoi(dev.id().substr(dev.id().find(':') + 1))), "cudaSetDevice");
  ok(cudaMemcpy(to, from, bytes, kind), "cudaMemcpy");
  ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
#endif

}  // namespace

void download_range(Device& dev, Buffer& b, void* dst, std::size_t offset, std::size_t bytes) {
  check(b, offset, bytes);
  if (!bytes) return;
  switch (dev.info().backend) {
    case BackendKind::Host:
      std::memcpy(dst, static_cast<const char*>(b.native()) + offset, bytes);
      return;
#ifdef HETBENCH_HAVE_CUDA
    case BackendKind::Cuda:
      cuda_copy(dev, dst, static_cast<const char*>(b.native()) + offset, bytes, cudaMemcpyDeviceToHost);
      return;
#endif
    default: {
      std::vector<unsigned char> all(b.bytes());
      b.download(all.data());
      std::memcpy(dst, all.data() + offset, bytes);
    }
  }
}

void upload_range(Device& dev, Buffer& b, const void* src, std::size_t offset, std::size_t bytes) {
  check(b, offset, bytes);
  if (!bytes) return;
  switch (dev.info().backend) {
    case BackendKind::Host:
      std::memcpy(static_cast<char*>(b.native()) + offset, src, bytes);
      return;
#ifdef HETBENCH_HAVE_CUDA
    case BackendKind::Cuda:
      cuda_copy(dev, static_cast<char*>(b.native()) + offset, src, bytes, cudaMemcpyHostToDevice);
      return;
#endif
    default: {
      std::vector<unsigned char> all(b.bytes());
      b.download(all.data());
      std::memcpy(all.data() + offset, src, bytes);
      b.upload(all.data());
    }
  }
}

}  // namespace hetbench::mpi
