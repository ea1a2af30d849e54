// The PCIe link of an NVIDIA GPU as NVML reports it, and the rate it can carry in practice
// (the yardstick of op transfer, docs/memory-system.md "## transfer").
#pragma once

#include <optional>

#include "hetbench/device.hpp"

namespace hetbench {

// GB/s (1e9 bytes) per direction: per-lane signalling rate x width x line-code efficiency
// x the packet efficiency kPciePacketEfficiency; empty for an unknown generation.
std::optional<double> pcie_practical_gbs(unsigned gen, unsigned width);
// Transaction-layer packets of 256-byte payloads carry ~24 bytes of header, sequence
// number, LCRC and framing, and the link also carries acknowledgements and flow-control
// credits: about 0.9 of the encoded rate is data (J. Lawley, "Understanding Performance
// of PCI Express Systems", Xilinx WP350; R. Neugebauer et al., "Understanding PCIe
// performance for end host networking", SIGCOMM 2018).
inline constexpr double kPciePacketEfficiency = 0.9;

// Adds pcie_gen, pcie_width, pcie_gen_max, pcie_width_max, pcie_practical_gbs and
// pcie_rate_note to the device's extra where NVML can read the link (CUDA devices and
// NVIDIA OpenCL devices); nothing otherwise.
void add_pcie_link(DeviceInfo& info);

}  // namespace hetbench
