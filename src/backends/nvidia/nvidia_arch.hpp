// NVIDIA GPU facts that no API reports, shared by the CUDA backend and by NVIDIA's
// OpenCL devices (cl_nv_device_attribute_query gives the compute capability).
#pragma once

#include <utility>

namespace hetbench {

// FP32 and FP64 lanes per SM by compute capability (CUDA programming guide, arithmetic
// instruction throughput table); {0, 0} where unknown.
std::pair<int, int> nvidia_sm_lanes(int major, int minor);
// The architecture's name (pascal, volta, turing, ampere, ada, hopper, blackwell) by
// compute capability; "" where unknown. A layout file's `Arch` section may be named so.
const char* nvidia_arch_name(int major, int minor);

}  // namespace hetbench
