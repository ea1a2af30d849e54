#include "backends/nvidia/pcie_link.hpp"

#include <fmt/format.h>

#include "backends/nvidia/nvml.hpp"

namespace hetbench {

namespace {

// Per-lane transfer rate (GT/s) and line-code efficiency of each generation, from the
// PCI-SIG base specifications: 8b/10b up to gen 2, 128b/130b for gens 3-5, and gen 6's
// FLIT mode (PAM4) carrying 242 payload bytes in 256.
struct Gen {
  double gts, code;
  const char* code_name;
};
std::optional<Gen> generation(unsigned gen) {
  switch (gen) {
    case 1: return Gen{2.5, 8.0 / 10, "8b/10b"};
    case 2: return Gen{5.0, 8.0 / 10, "8b/10b"};
    case 3: return Gen{8.0, 128.0 / 130, "128b/130b"};
    case 4: return Gen{16.0, 128.0 / 130, "128b/130b"};
    case 5: return Gen{32.0, 128.0 / 130, "128b/130b"};
    case 6: return Gen{64.0, 242.0 / 256, "FLIT 242/256"};
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<double> pcie_practical_gbs(unsigned gen, unsigned width) {
  const auto g = generation(gen);
  if (!g || width == 0) return std::nullopt;
  return g->gts * width * g->code / 8 * kPciePacketEfficiency;
}

void add_pcie_link(DeviceInfo& i) {
  const auto h = nvml::device_for(i).first;
  if (!h) return;
  const auto* n = nvml::api();
  auto& x = i.extra;
  unsigned v = 0;
  if (n->DeviceGetCurrPcieLinkGeneration && n->DeviceGetCurrPcieLinkGeneration(h, &v) == nvml::kSuccess)
    x["pcie_gen"] = v;
  if (n->DeviceGetCurrPcieLinkWidth && n->DeviceGetCurrPcieLinkWidth(h, &v) == nvml::kSuccess) x["pcie_width"] = v;
  if (n->DeviceGetMaxPcieLinkGeneration && n->DeviceGetMaxPcieLinkGeneration(h, &v) == nvml::kSuccess)
    x["pcie_gen_max"] = v;
  if (n->DeviceGetMaxPcieLinkWidth && n->DeviceGetMaxPcieLinkWidth(h, &v) == nvml::kSuccess) x["pcie_width_max"] = v;
  // The link trains down when idle (power saving): the maximum is what a transfer gets.
  const auto gen = x.value("pcie_gen_max", x.value("pcie_gen", 0u));
  const auto width = x.value("pcie_width_max", x.value("pcie_width", 0u));
  if (auto r = pcie_practical_gbs(gen, width)) {
    const auto g = *generation(gen);
    x["pcie_practical_gbs"] = *r;
    x["pcie_rate_note"] = fmt::format("GB/s per direction = {} GT/s x {} lanes x {} ({}) / 8 x {} (packet overhead)",
                                      g.gts, width, g.code, g.code_name, kPciePacketEfficiency);
  }
}

}  // namespace hetbench
