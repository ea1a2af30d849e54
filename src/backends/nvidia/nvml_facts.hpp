// What `nvidia-smi -q` prints about a GPU, through NVML, as device-report facts: shared by
// CUDA devices and NVIDIA's OpenCL devices (matched by PCI address, nvml::device_for).
#pragma once

#include "api/device_facts.hpp"

namespace hetbench {

// Adds the NVML facts to sections "clocks", "memory", "link", "power", "modes" and
// "software". Without NVML (or when it does not know the GPU) every line is there with a
// null value and the reason, "NVML not found" when libnvidia-ml.so.1 cannot be loaded.
void add_nvml_facts(FactList& f, const DeviceInfo& info);

}  // namespace hetbench
