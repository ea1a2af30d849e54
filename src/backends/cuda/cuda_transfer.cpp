// cuda/transfer/memcpy: the host link on CUDA, as bandwidthTest measures it:
// cudaMemcpyAsync between host memory (malloc'd, or cudaMallocHost) and the device on the
// device's stream (bidir: the second direction on a second stream), timed by the
// stream's events; d2d is cudaMemcpyAsync within the GPU (bandwidthTest's Device to
// Device), peer is cudaMemcpyPeerAsync to the next GPU.
#include "backends/cuda/cuda_call.hpp"
#include "ops/transfer.hpp"

namespace hetbench {

namespace {

std::shared_ptr<Device> next_gpu(Device& self) {
  const auto all = backend(BackendKind::Cuda).devices();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].get() == &self && all.size() > 1) return all[(i + 1) % all.size()];
  return nullptr;
}

const bool registered_cuda_transfer = [] {
  register_transfer_variant<TransferCall<CudaCall>>(
      "memcpy",
      "cudaMemcpyAsync host<->device from malloc'd (pageable) or cudaMallocHost (pinned) memory, bidir on two "
      "streams; d2d: cudaMemcpyAsync device to device on the GPU; peer: cudaMemcpyPeerAsync to the next GPU (peer "
      "access enabled where the topology allows)",
      next_gpu);
  return true;
}();

}  // namespace

}  // namespace hetbench
