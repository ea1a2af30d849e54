// opencl/transfer/enqueue: the host link on OpenCL, as NVIDIA's oclBandwidthTest measures
// it in its direct mode: clEnqueueWriteBuffer / clEnqueueReadBuffer from malloc'd
// (pageable) memory or from a mapped CL_MEM_ALLOC_HOST_PTR buffer (pinned), timed by
// the commands' profiling events; bidir on a second queue; d2d by clEnqueueCopyBuffer
// within the device. Each device has a context of its own, so there is no copy to a
// second device (peers = 0: peer points are skipped).
#include "backends/opencl/cl_backend.hpp"
#include "ops/transfer.hpp"

namespace hetbench {

namespace {

using ClTransferCall = TransferCall<CallBase<ClDevice, BackendKind::OpenCL>>;

const bool registered_cl_transfer = [] {
  register_transfer_variant<ClTransferCall>(
      "enqueue",
      "clEnqueueWriteBuffer/ReadBuffer from malloc'd (pageable) memory or a mapped CL_MEM_ALLOC_HOST_PTR buffer "
      "(pinned), bidir on a second queue, d2d by clEnqueueCopyBuffer; no peer copy (one context per device)",
      [](Device&) { return std::shared_ptr<Device>(); });
  return true;
}();

}  // namespace

}  // namespace hetbench
