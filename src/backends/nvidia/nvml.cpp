// Loading NVML (dlopen) and finding the NVML handle of a hetbench device.
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <type_traits>

#include <fmt/format.h>

#include "backends/nvidia/nvml.hpp"

namespace hetbench {

namespace nvml {

namespace {

struct Loaded {
  Api api;
  std::string why;
  bool ok = false;
};

Loaded load() {
  Loaded l;
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    l.why = fmt::format("NVML unavailable: cannot load libnvidia-ml.so.1 ({})", e ? e : "not found");
    return l;
  }
  auto sym = [&](const char* n) { return dlsym(h, n); };
  auto init = reinterpret_cast<Return (*)()>(sym("nvmlInit_v2"));
  if (!init) {
    l.why = "NVML unavailable: libnvidia-ml.so.1 has no nvmlInit_v2";
    return l;
  }
  l.api.ErrorString = reinterpret_cast<const char* (*)(Return)>(sym("nvmlErrorString"));
  if (Return r = init(); r != kSuccess) {
    l.why = fmt::format("NVML unavailable: nvmlInit_v2 failed ({})",
                        l.api.ErrorString ? l.api.ErrorString(r) : std::to_string(r));
    return l;
  }
  auto& a = l.api;
  a.DeviceGetHandleByPciBusId =
      reinterpret_cast<decltype(a.DeviceGetHandleByPciBusId)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
  a.DeviceGetPowerUsage = reinterpret_cast<decltype(a.DeviceGetPowerUsage)>(sym("nvmlDeviceGetPowerUsage"));
  a.DeviceGetTotalEnergyConsumption =
      reinterpret_cast<decltype(a.DeviceGetTotalEnergyConsumption)>(sym("nvmlDeviceGetTotalEnergyConsumption"));
  a.DeviceGetClockInfo = reinterpret_cast<decltype(a.DeviceGetClockInfo)>(sym("nvmlDeviceGetClockInfo"));
  // Renamed in driver 535; the old name stays exported for older drivers.
  a.DeviceGetCurrentClocksEventReasons =
      reinterpret_cast<decltype(a.DeviceGetCurrentClocksEventReasons)>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
  if (!a.DeviceGetCurrentClocksEventReasons)
    a.DeviceGetCurrentClocksEventReasons = reinterpret_cast<decltype(a.DeviceGetCurrentClocksEventReasons)>(
        sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
  a.DeviceGetCurrPcieLinkGeneration =
      reinterpret_cast<decltype(a.DeviceGetCurrPcieLinkGeneration)>(sym("nvmlDeviceGetCurrPcieLinkGeneration"));
  a.DeviceGetCurrPcieLinkWidth =
      reinterpret_cast<decltype(a.DeviceGetCurrPcieLinkWidth)>(sym("nvmlDeviceGetCurrPcieLinkWidth"));
  a.DeviceGetMaxPcieLinkGeneration =
      reinterpret_cast<decltype(a.DeviceGetMaxPcieLinkGeneration)>(sym("nvmlDeviceGetMaxPcieLinkGeneration"));
  a.DeviceGetMaxPcieLinkWidth =
      reinterpret_cast<decltype(a.DeviceGetMaxPcieLinkWidth)>(sym("nvmlDeviceGetMaxPcieLinkWidth"));
  auto load_sym = [&](auto& fn, const char* name) { fn = reinterpret_cast<std::decay_t<decltype(fn)>>(sym(name)); };
  load_sym(a.DeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo");
  load_sym(a.DeviceGetApplicationsClock, "nvmlDeviceGetApplicationsClock");
  load_sym(a.DeviceGetDefaultApplicationsClock, "nvmlDeviceGetDefaultApplicationsClock");
  load_sym(a.DeviceGetPowerManagementLimit, "nvmlDeviceGetPowerManagementLimit");
  load_sym(a.DeviceGetPowerManagementDefaultLimit, "nvmlDeviceGetPowerManagementDefaultLimit");
  load_sym(a.DeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit");
  load_sym(a.DeviceGetComputeMode, "nvmlDeviceGetComputeMode");
  load_sym(a.DeviceGetEccMode, "nvmlDeviceGetEccMode");
  load_sym(a.DeviceGetPersistenceMode, "nvmlDeviceGetPersistenceMode");
  load_sym(a.DeviceGetTemperature, "nvmlDeviceGetTemperature");
  load_sym(a.DeviceGetVbiosVersion, "nvmlDeviceGetVbiosVersion");
  load_sym(a.SystemGetDriverVersion, "nvmlSystemGetDriverVersion");
  load_sym(a.DeviceGetPerformanceState, "nvmlDeviceGetPerformanceState");
  load_sym(a.DeviceGetTotalEccErrors, "nvmlDeviceGetTotalEccErrors");
  load_sym(a.DeviceGetRetiredPages, "nvmlDeviceGetRetiredPages");
  load_sym(a.DeviceGetRetiredPagesPendingStatus, "nvmlDeviceGetRetiredPagesPendingStatus");
  load_sym(a.DeviceGetRemappedRows, "nvmlDeviceGetRemappedRows");
  load_sym(a.DeviceGetSupportedMemoryClocks, "nvmlDeviceGetSupportedMemoryClocks");
  load_sym(a.DeviceGetSupportedGraphicsClocks, "nvmlDeviceGetSupportedGraphicsClocks");
  load_sym(a.DeviceGetTemperatureThreshold, "nvmlDeviceGetTemperatureThreshold");
  load_sym(a.DeviceSetGpuLockedClocks, "nvmlDeviceSetGpuLockedClocks");
  load_sym(a.DeviceResetGpuLockedClocks, "nvmlDeviceResetGpuLockedClocks");
  if (!a.DeviceGetHandleByPciBusId || !a.DeviceGetPowerUsage) {
    l.why = "NVML unavailable: libnvidia-ml.so.1 lacks nvmlDeviceGetHandleByPciBusId_v2 or nvmlDeviceGetPowerUsage";
    return l;
  }
  l.ok = true;  // the library stays loaded for the life of the process
  return l;
}

}  // namespace

const Api* api(std::string* why) {
  static const Loaded l = load();
  if (!l.ok && why) *why = l.why;
  return l.ok ? &l.api : nullptr;
}

std::vector<std::string> throttle_reason_names(std::uint64_t bits) {
  static constexpr std::pair<std::uint64_t, const char*> kNames[] = {
      {kReasonSwPowerCap, "sw_power_cap"},       {kReasonHwSlowdown, "hw_slowdown"},
      {kReasonSyncBoost, "sync_boost"},          {kReasonSwThermal, "sw_thermal_slowdown"},
      {kReasonHwThermal, "hw_thermal_slowdown"}, {kReasonHwPowerBrake, "hw_power_brake_slowdown"}};
  std::vector<std::string> out;
  for (auto [bit, name] : kNames)
    if (bits & bit) out.emplace_back(name);
  return out;
}

std::string error(Return r) {
  const auto* a = api();
  return a && a->ErrorString ? a->ErrorString(r) : fmt::format("NVML error {}", r);
}

Device device_by_pci(unsigned domain, unsigned bus, unsigned dev, std::string* why) {
  const auto* a = api(why);
  if (!a) return nullptr;
  Device h = nullptr;
  Return r = kSuccess;
  for (const char* f : {"{:08x}:{:02x}:{:02x}.0", "{:04x}:{:02x}:{:02x}.0"}) {
    r = a->DeviceGetHandleByPciBusId(fmt::format(fmt::runtime(f), domain, bus, dev).c_str(), &h);
    if (r == kSuccess) return h;
  }
  if (why) *why = fmt::format("NVML knows no GPU at PCI {:04x}:{:02x}:{:02x}.0 ({})", domain, bus, dev, error(r));
  return nullptr;
}

namespace {

struct Located {
  Device handle = nullptr;
  std::string address;  // domain:bus:device.0, as NVML matched it
  std::string why;
};

// Looked up once per device: the CUDA device's PCI address, or the one NVIDIA's OpenCL
// extension reports, whose slot is the device or, on some drivers, (device << 3) | function.
const Located& locate(const DeviceInfo& i) {
  static std::mutex mu;
  static std::map<std::string, Located> known;
  std::lock_guard lock(mu);
  if (auto it = known.find(i.id); it != known.end()) return it->second;
  Located out;
  auto u = [&](const char* k) { return i.extra.contains(k) ? i.extra[k].get<unsigned>() : 0u; };
  auto at = [&](unsigned domain, unsigned bus, unsigned dev) {
    out.handle = device_by_pci(domain, bus, dev, &out.why);
    if (out.handle) out.address = fmt::format("{:04x}:{:02x}:{:02x}.0", domain, bus, dev);
  };
  if (i.backend == BackendKind::Cuda && i.extra.contains("pci_bus")) {
    at(u("pci_domain"), u("pci_bus"), u("pci_device"));
  } else if (i.backend == BackendKind::OpenCL && i.extra.contains("pci_bus_id_nv")) {
    at(u("pci_domain_id_nv"), u("pci_bus_id_nv"), u("pci_slot_id_nv"));
    if (!out.handle) at(u("pci_domain_id_nv"), u("pci_bus_id_nv"), u("pci_slot_id_nv") >> 3);
  } else {
    out.why = fmt::format("{} is not an NVIDIA GPU (NVML covers CUDA devices and NVIDIA OpenCL devices)", i.id);
  }
  if (out.handle) out.why.clear();
  return known[i.id] = out;
}

}  // namespace

std::pair<Device, std::string> device_for(const DeviceInfo& i) {
  const auto& l = locate(i);
  return {l.handle, l.why};
}

std::string pci_address(const DeviceInfo& i, std::string* why) {
  const auto& l = locate(i);
  if (!l.handle && why) *why = l.why;
  return l.address;
}

}  // namespace nvml

}  // namespace hetbench
