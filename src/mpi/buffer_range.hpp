// Part of a device buffer to or from the host, [offset, offset + bytes): the halo moves a
// plane or so of a vector, not all of it. The host's buffers are memory; CUDA's are copied
// with cudaMemcpy on the device pointer; other backends (OpenCL) go through a copy of the
// whole buffer, correct but as slow as the vector is long.
#pragma once

#include <cstddef>

#include "hetbench/device.hpp"

namespace hetbench::mpi {

void download_range(Device& dev, Buffer& b, void* dst, std::size_t offset, std::size_t bytes);
void upload_range(Device& dev, Buffer& b, const void* src, std::size_t offset, std::size_t bytes);

}  // namespace hetbench::mpi
