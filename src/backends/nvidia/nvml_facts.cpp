#include "backends/nvidia/nvml_facts.hpp"

#include <algorithm>
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

// nvmlDeviceGetTotalEccErrors(error type: 0 corrected, 1 uncorrected; counter: 0 volatile,
// 1 aggregate).
auto ecc_errors(int type, int counter) {
  return [=](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
    unsigned long long x = 0;
    const bool ok = call(n.DeviceGetTotalEccErrors, h, type, counter, &x);
    if (ok) v = x;
    return ok;
  };
}

// The count of pages retired for `cause` (0: multiple single-bit errors, 1: double-bit):
// asked with no room for the addresses, NVML answers the count (with "insufficient size"
// where there are some).
auto retired_pages(int cause) {
  return [=](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
    if (!n.DeviceGetRetiredPages) return false;
    unsigned count = 0;
    const nvml::Return r = n.DeviceGetRetiredPages(h, cause, &count, nullptr);
    if (r != nvml::kSuccess && r != nvml::kErrorInsufficientSize) return false;
    v = count;
    return true;
  };
}

auto temperature_threshold(int which) {
  return [=](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
    unsigned x = 0;
    const bool ok = call(n.DeviceGetTemperatureThreshold, h, which, &x);
    if (ok) v = x;
    return ok;
  };
}

// A list of clocks as its range and count ({"min", "max", "count"}): nvidia-smi -q -d
// SUPPORTED_CLOCKS prints each, a report needs the span.
nlohmann::json clock_span(const unsigned* mhz, unsigned count) {
  const auto [lo, hi] = std::minmax_element(mhz, mhz + count);
  return {{"min", *lo}, {"max", *hi}, {"count", count}};
}

bool supported_mem_clocks(const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
  unsigned mhz[256], count = 256;
  if (!call(n.DeviceGetSupportedMemoryClocks, h, &count, mhz) || count == 0) return false;
  v = clock_span(mhz, count);
  return true;
}

bool supported_sm_clocks(const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
  unsigned mem[256], mem_count = 256;
  if (!call(n.DeviceGetSupportedMemoryClocks, h, &mem_count, mem) || mem_count == 0) return false;
  unsigned mhz[1024], count = 1024;
  if (!call(n.DeviceGetSupportedGraphicsClocks, h, *std::max_element(mem, mem + mem_count), &count, mhz) || count == 0)
    return false;
  v = clock_span(mhz, count);
  return true;
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
      {"clocks", "sm_supported_mhz", "SM clocks supported (at the highest memory clock)", "MHz", supported_sm_clocks},
      {"clocks", "mem_supported_mhz", "memory clocks supported", "MHz", supported_mem_clocks},
      {"health", "pstate", "performance state", "",
       [](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
         int p = 0;
         if (!call(n.DeviceGetPerformanceState, h, &p)) return false;
         v = p == 32 ? std::string("unknown") : fmt::format("P{}", p);
         return true;
       }},
      {"health", "clock_event_reasons", "clock slowdown reasons now", "",
       [](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
         unsigned long long bits = 0;
         if (!call(n.DeviceGetCurrentClocksEventReasons, h, &bits)) return false;
         const auto names = nvml::throttle_reason_names(bits);
         v = names.empty() ? nlohmann::json("none") : nlohmann::json(names);
         return true;
       }},
      {"health", "ecc_corrected_volatile", "ECC errors corrected (since boot)", "", ecc_errors(0, 0)},
      {"health", "ecc_uncorrected_volatile", "ECC errors uncorrected (since boot)", "", ecc_errors(1, 0)},
      {"health", "ecc_corrected_aggregate", "ECC errors corrected (lifetime)", "", ecc_errors(0, 1)},
      {"health", "ecc_uncorrected_aggregate", "ECC errors uncorrected (lifetime)", "", ecc_errors(1, 1)},
      {"health", "retired_pages_sbe", "retired pages (multiple single-bit errors)", "pages", retired_pages(0)},
      {"health", "retired_pages_dbe", "retired pages (double-bit errors)", "pages", retired_pages(1)},
      {"health", "retired_pages_pending", "page retirement pending", "", enabled(&nvml::Api::DeviceGetRetiredPagesPendingStatus)},
      {"health", "remapped_rows", "remapped rows (correctable, uncorrectable, pending, failed)", "",
       [](const nvml::Api& n, nvml::Device h, nlohmann::json& v) {
         unsigned corr = 0, unc = 0, pending = 0, failed = 0;
         if (!call(n.DeviceGetRemappedRows, h, &corr, &unc, &pending, &failed)) return false;
         v = {{"correctable", corr}, {"uncorrectable", unc}, {"pending", pending != 0}, {"failed", failed != 0}};
         return true;
       }},
      {"power", "temp_slowdown_c", "temperature at which clocks slow down", "C", temperature_threshold(1)},
      {"power", "temp_shutdown_c", "temperature at which the GPU shuts down", "C", temperature_threshold(0)},
      {"power", "temp_gpu_max_c", "highest GPU temperature for normal operation", "C", temperature_threshold(3)},
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
