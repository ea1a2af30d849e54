// The SM clock, board power, temperature and the throttle state of NVIDIA GPUs after every
// timed repetition, through NVML, as nvbench's cold measurement reads the clock per sample
// (NVIDIA/nvbench, nvbench/detail/measure_cold.cu). A sample is marked throttled when NVML
// gives a reason that is a slowdown (power cap, thermal, hardware slowdown, power brake,
// sync boost), not a setting (idle, application or display clocks). Nothing is marked where
// NVML or the call is missing.
#include <algorithm>
#include <utility>

#include "backends/nvidia/nvml.hpp"
#include "hetbench/observer.hpp"

namespace hetbench {

namespace {

class NvmlClocks final : public PointObserver {
 public:
  void sample(Device& dev, PointTiming& t) override {
    auto [h, why] = nvml::device_for(dev.info());
    if (!h) return;
    const auto* a = nvml::api();
    if (a->DeviceGetClockInfo) {
      unsigned mhz = 0;
      t.sm_clock_mhz.push_back(a->DeviceGetClockInfo(h, nvml::kClockSM, &mhz) == nvml::kSuccess ? mhz : 0);
    }
    if (a->DeviceGetPowerUsage) {
      unsigned mw = 0;
      t.power_w.push_back(a->DeviceGetPowerUsage(h, &mw) == nvml::kSuccess ? mw * 1e-3 : 0.0);
    }
    if (a->DeviceGetTemperature) {
      unsigned c = 0;
      t.temperature_c.push_back(a->DeviceGetTemperature(h, 0, &c) == nvml::kSuccess ? c : 0);
    }
    if (a->DeviceGetCurrentClocksEventReasons) {
      unsigned long long bits = 0;
      if (a->DeviceGetCurrentClocksEventReasons(h, &bits) != nvml::kSuccess) bits = 0;
      t.throttled.push_back((bits & nvml::kThrottleReasons) != 0);
      for (auto& name : nvml::throttle_reason_names(bits))
        if (std::find(t.throttle_reasons.begin(), t.throttle_reasons.end(), name) == t.throttle_reasons.end())
          t.throttle_reasons.push_back(std::move(name));
    }
  }
};

const bool registered_clocks_nvml = [] {
  register_observer(std::make_shared<NvmlClocks>());
  return true;
}();

}  // namespace

}  // namespace hetbench
