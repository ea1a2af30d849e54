#include "backends/nvidia/nvml_facts.hpp"

#include <functional>
#include <tuple>

#include <fmt/format.h>

#include "backends/nvidia/nvml.hpp"

namespace hetbench {

namespace {

// Each NVML line: its section, key, label, unit and how to read it (false: no answer).
struct Line {
  const char* section;
  const char* key;
  const char* label;
  const char* unit;
  std::function<bool(const nvml::Api&, nvml::Device, nlohmann::json&)> read;
};

template <class Fn, class... A>
bool call(Fn fn, A... a) {
  return fn && fn(a...) == nvml::kSuccess;
}

auto mhz(unsigned clock, bool max, bool app_default = false) {
  return [=](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
    unsigned x = 0;
    const bool ok = max ? call(n.DeviceGetMaxClockInfo, h, clock, &x)
                        : app_default ? call(n.DeviceGetDefaultApplicationsClock, h, clock, &x)
                                      : call(n.DeviceGetClockInfo, h, clock, &x);
    if (ok) v = x;
    return ok;
  };
}

auto app_mhz(unsigned clock) {
  return [=](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
    unsigned x = 0;
    const bool ok = call(n.DeviceGetApplicationsClock, h, clock, &x);
    if (ok) v = x;
    return ok;
  };
}

auto unsigned_of(nvml::Return (*nvml::Api::*fn)(nvml::Device, unsigned*), double scale = 1) {
  return [=](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
    unsigned x = 0;
    const bool ok = call(n.*fn, h, &x);
    if (ok) v = scale == 1 ? nlohmann::json(x) : nlohmann::json(x * scale);
    return ok;
  };
}

auto enabled(nvml::Return (*nvml::Api::*fn)(nvml::Device, int*)) {
  return [=](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
    int x = 0;
    const bool ok = call(n.*fn, h, &x);
    if (ok) v = x != 0;
    return ok;
  };
}

const std::vector<Line>& lines() {
  static const std::vector<Line> l{
      {"clocks", "sm_current_mhz", "SM clock (current, NVML)", "MHz", mhz(nvml::kClockSM, false)},
      {"clocks", "sm_max_mhz", "SM clock (max, NVML)", "MHz", mhz(nvml::kClockSM, true)},
      {"clocks", "sm_app_mhz", "SM clock (application)", "MHz", app_mhz(nvml::kClockSM)},
      {"clocks", "sm_app_default_mhz", "SM clock (default application: base)", "MHz", mhz(nvml::kClockSM, false, true)},
      {"clocks", "mem_current_mhz", "memory clock (current, NVML)", "MHz", mhz(nvml::kClockMem, false)},
      {"clocks", "mem_max_mhz", "memory clock (max, NVML)", "MHz", mhz(nvml::kClockMem, true)},
      {"link", "pcie_gen_current", "PCIe generation (current)", "", unsigned_of(&nvml::Api::DeviceGetCurrPcieLinkGeneration)},
      {"link", "pcie_gen_max", "PCIe generation (max)", "", unsigned_of(&nvml::Api::DeviceGetMaxPcieLinkGeneration)},
      {"link", "pcie_width_current", "PCIe width (current)", "lanes", unsigned_of(&nvml::Api::DeviceGetCurrPcieLinkWidth)},
      {"link", "pcie_width_max", "PCIe width (max)", "lanes", unsigned_of(&nvml::Api::DeviceGetMaxPcieLinkWidth)},
      {"power", "draw_w", "power draw", "W", unsigned_of(&nvml::Api::DeviceGetPowerUsage, 1e-3)},
      {"power", "limit_w", "power limit (current)", "W", unsigned_of(&nvml::Api::DeviceGetPowerManagementLimit, 1e-3)},
      {"power", "default_limit_w", "power limit (default)", "W",
       unsigned_of(&nvml::Api::DeviceGetPowerManagementDefaultLimit, 1e-3)},
      {"power", "enforced_limit_w", "power limit (enforced)", "W", unsigned_of(&nvml::Api::DeviceGetEnforcedPowerLimit, 1e-3)},
      {"power", "temperature_c", "GPU temperature", "C",
       [](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
         unsigned x = 0;
         const bool ok = call(n.DeviceGetTemperature, h, 0, &x);
         if (ok) v = x;
         return ok;
       }},
      {"modes", "ecc_nvml", "ECC mode (current, NVML)", "",
       [](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
         int cur = 0, pending = 0;
         const bool ok = call(n.DeviceGetEccMode, h, &cur, &pending);
         if (ok) v = cur != 0;
         return ok;
       }},
      {"modes", "persistence", "persistence mode", "", enabled(&nvml::Api::DeviceGetPersistenceMode)},
      {"modes", "compute_mode_nvml", "compute mode (NVML)", "",
       [](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
         int m = 0;
         if (!call(n.DeviceGetComputeMode, h, &m)) return false;
         static const char* names[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
         v = m >= 0 && m < 4 ? names[m] : "unknown";
         return true;
       }},
      {"software", "vbios", "VBIOS version", "",
       [](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
         char buf[96] = {0};
         if (!call(n.DeviceGetVbiosVersion, h, buf, unsigned{sizeof buf})) return false;
         v = std::string(buf);
         return true;
       }},
      {"software", "nvml_driver", "driver version (NVML)", "",
       [](const nvml::Api& n, nvml::Device, nlohmann::json& v) {
         char buf[96] = {0};
         if (!call(n.SystemGetDriverVersion, buf, unsigned{sizeof buf})) return false;
         v = std::string(buf);
         return true;
       }},
  };
  return l;
}

}  // namespace

void add_nvml_facts(FactList& f, const DeviceInfo& info) {
  std::string why;
  const nvml::Api* api = nvml::api(&why);
  nvml::Device h = nullptr;
  if (!api)
    why = why.find("cannot load") != std::string::npos ? "NVML not found" : why;
  else
    std::tie(h, why) = nvml::device_for(info);
  for (const auto& l : lines()) {
    f.section(l.section);
    nlohmann::json v;
    if (h && l.read(*api, h, v))
      f.add(l.key, l.label, v, l.unit, "NVML");
    else
      f.absent(l.key, l.label, l.unit, h ? "NVML does not report it for this GPU" : why);
  }
}

}  // namespace hetbench
