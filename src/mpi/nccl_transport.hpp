// How the distributed solvers move data between ranks (docs/mpi.md, "Transports"): the
// halo through MPI with host staging, or, for CUDA buffers when libnccl is found at run
// time, by NCCL send/receive pairs between the device buffers themselves (NVLink between
// the GPUs of one host). NCCL is opened with dlopen, like cuBLAS (src/backends/cuda/cuda_dl.hpp):
// $HETBENCH_NCCL, then the loader's path, then the lib folders of the Python package
// nvidia-nccl-cu* (how the GPU hosts have it).
#pragma once

#include <memory>
#include <string>

#include "hetbench/device.hpp"
#include "mpi/dist_solver_ops.hpp"
#include "mpi/halo.hpp"

namespace hetbench::mpi {

struct Transport {
  std::unique_ptr<HaloExchange> halo;
  std::unique_ptr<DotReduce> reduce;
  std::string why;  // why NCCL is not used (empty when it is)
};

// Collective. `want`: auto (NCCL when every rank's device is CUDA, libnccl loads and every
// halo span is dense; MPI otherwise, saying why), mpi, or nccl (AgreedError naming each
// rank that cannot).
Transport make_transport(const std::string& want, Device& dev, Halo h, std::size_t own, std::size_t elem);

}  // namespace hetbench::mpi
