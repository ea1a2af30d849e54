// The SM clock and the throttle state of NVIDIA GPUs after every timed repetition, through
// NVML, as nvbench's cold measurement reads the clock per sample (NVIDIA/nvbench,
// nvbench/detail/measure_cold.cu). A sample is marked throttled when NVML gives a
// reason that is a slowdown (power cap, thermal, hardware slowdown, power brake, sync
// boost), not a setting (idle, application or display clocks). Nothing is marked where
// NVML or the call is missing.
#include <algorithm>
#include <utility>

#include "backends/nvidia/nvml.hpp"
#include "hetbench/observer.hpp"

namespace hetbench {

namespace {

constexpr std::pair<std::uint64_t, const char*> kReasonNames[] = {
    {nvml::kReasonSwPowerCap, "sw_power_cap"},         {nvml::kReasonHwSlowdown, "hw_slowdown"},
    {nvml::kReasonSyncBoost, "sync_boost"},            {nvml::kReasonSwThermal, "sw_thermal_slowdown"},
    {nvml::kReasonHwThermal, "hw_thermal_slowdown"},   {nvml::kReasonHwPowerBrake, "hw_power_brake_slowdown"}};

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
    if (a->DeviceGetCurrentClocksEventReasons) {
      unsigned long long bits = 0;
      if (a->DeviceGetCurrentClocksEventReasons(h, &bits) != nvml::kSuccess) bits = 0;
      t.throttled.push_back((bits & nvml::kThrottleReasons) != 0);
      for (auto [bit, name] : kReasonNames)
        if ((bits & bit) && std::find(t.throttle_reasons.begin(), t.throttle_reasons.end(), name) == t.throttle_reasons.end())
          t.throttle_reasons.emplace_back(name);
    }
  }
};

const bool registered_clocks_nvml = [] {
  register_observer(std::make_shared<NvmlClocks>());
  return true;
}();

}  // namespace

}  // namespace hetbench
