// --lock-clocks on NVIDIA GPUs through NVML: nvmlDeviceSetGpuLockedClocks and
// nvmlDeviceResetGpuLockedClocks (root, or the driver's setting that lets users lock),
// the highest SM clock (nvmlDeviceGetMaxClockInfo) and the base clock (the default
// application clock, nvmlDeviceGetDefaultApplicationsClock), as `nvidia-smi
// --lock-gpu-clocks` and `--reset-gpu-clocks` do. The lock and restore logic is
// engine/measure/clock_lock.cpp's.
#include <fmt/format.h>

#include "backends/nvidia/nvml.hpp"
#include "hetbench/clock_control.hpp"

namespace hetbench {

namespace {

class NvmlClockControl final : public ClockControl {
 public:
  std::string gpu_of(const DeviceInfo& d, std::string* why) override {
    std::string w;
    if (!nvml::api(&w)) {
      if (why) *why = w;
      return "";
    }
    return nvml::pci_address(d, why);
  }

  unsigned max_mhz(const std::string& gpu) override {
    return clock(gpu, [](const nvml::Api& a) { return a.DeviceGetMaxClockInfo; });
  }
  unsigned base_mhz(const std::string& gpu) override {
    return clock(gpu, [](const nvml::Api& a) { return a.DeviceGetDefaultApplicationsClock; });
  }

  std::string lock(const std::string& gpu, unsigned mhz, bool* denied) override {
    *denied = false;
    std::string why;
    const auto* a = nvml::api(&why);
    if (!a) return why;
    if (!a->DeviceSetGpuLockedClocks) return "this driver's NVML has no nvmlDeviceSetGpuLockedClocks";
    nvml::Device h = handle(gpu, &why);
    if (!h) return why;
    const nvml::Return r = a->DeviceSetGpuLockedClocks(h, mhz, mhz);
    if (r == nvml::kSuccess) return "";
    *denied = r == nvml::kErrorNoPermission;
    return fmt::format("nvmlDeviceSetGpuLockedClocks: {}", nvml::error(r));
  }

  std::string reset(const std::string& gpu) override {
    std::string why;
    const auto* a = nvml::api(&why);
    if (!a) return why;
    if (!a->DeviceResetGpuLockedClocks) return "this driver's NVML has no nvmlDeviceResetGpuLockedClocks";
    nvml::Device h = handle(gpu, &why);
    if (!h) return why;
    const nvml::Return r = a->DeviceResetGpuLockedClocks(h);
    return r == nvml::kSuccess ? "" : fmt::format("nvmlDeviceResetGpuLockedClocks: {}", nvml::error(r));
  }

 private:
  static nvml::Device handle(const std::string& gpu, std::string* why) {
    unsigned domain = 0, bus = 0, dev = 0, fn = 0;
    if (std::sscanf(gpu.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) {
      *why = fmt::format("'{}' is no PCI address", gpu);
      return nullptr;
    }
    return nvml::device_by_pci(domain, bus, dev, why);
  }

  template <class Pick>
  static unsigned clock(const std::string& gpu, Pick pick) {
    const auto* a = nvml::api();
    std::string why;
    nvml::Device h = a ? handle(gpu, &why) : nullptr;
    unsigned mhz = 0;
    if (!h || !pick(*a) || pick(*a)(h, nvml::kClockSM, &mhz) != nvml::kSuccess) return 0;
    return mhz;
  }
};

const bool registered_clock_control = [] {
  set_clock_control(std::make_shared<NvmlClockControl>());
  return true;
}();

}  // namespace

}  // namespace hetbench
