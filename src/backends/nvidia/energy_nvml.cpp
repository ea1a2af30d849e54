// Board power and energy of NVIDIA GPUs through NVML, loaded with dlopen so that no build
// depends on the driver. An observer re-runs the point's work back to back for at least
// HETBENCH_ENERGY_MS milliseconds (default 250; the timed repetitions have untimed
// resets between them) and records "energy" in the point record.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "backends/nvidia/nvml.hpp"
#include "hetbench/observer.hpp"

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
  a.DeviceGetCurrPcieLinkGeneration =
      reinterpret_cast<decltype(a.DeviceGetCurrPcieLinkGeneration)>(sym("nvmlDeviceGetCurrPcieLinkGeneration"));
  a.DeviceGetCurrPcieLinkWidth =
      reinterpret_cast<decltype(a.DeviceGetCurrPcieLinkWidth)>(sym("nvmlDeviceGetCurrPcieLinkWidth"));
  a.DeviceGetMaxPcieLinkGeneration =
      reinterpret_cast<decltype(a.DeviceGetMaxPcieLinkGeneration)>(sym("nvmlDeviceGetMaxPcieLinkGeneration"));
  a.DeviceGetMaxPcieLinkWidth =
      reinterpret_cast<decltype(a.DeviceGetMaxPcieLinkWidth)>(sym("nvmlDeviceGetMaxPcieLinkWidth"));
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

}  // namespace nvml

namespace {

class NvmlEnergy final : public PointObserver {
 public:
  void begin(Device& dev, const Problem&) override {
    idle_w_.reset();
    auto [h, why] = handle(dev);
    unsigned mw = 0;
    if (h && nvml::api()->DeviceGetPowerUsage(h, &mw) == nvml::kSuccess) idle_w_ = mw * 1e-3;
  }

  void end(Device& dev, const Problem& prob, PointRecord& rec, const std::function<void()>& run_once) override {
    auto& energy = rec.observed.energy;
    const double seconds = rec.timing ? rec.timing->seconds.median : 0;
    auto [h, why] = handle(dev);
    double target_ms = 250;
    if (const char* e = std::getenv("HETBENCH_ENERGY_MS")) target_ms = std::atof(e);
    if (h && target_ms <= 0) why = "disabled (HETBENCH_ENERGY_MS=0)";
    if (!h || target_ms <= 0) {
      energy = {{"available", false}, {"reason", why}};
      return;
    }
    const auto* a = nvml::api();
    dev.finish();

    // Power and clocks sampled every 10 ms while the work runs.
    std::atomic<bool> stop{false};
    std::vector<double> watts;
    unsigned sm_min = ~0u, sm_max = 0, mem_min = ~0u, mem_max = 0;
    std::thread sampler([&] {
      while (!stop.load()) {
        unsigned v = 0;
        if (a->DeviceGetPowerUsage(h, &v) == nvml::kSuccess) watts.push_back(v * 1e-3);
        if (a->DeviceGetClockInfo && a->DeviceGetClockInfo(h, nvml::kClockSM, &v) == nvml::kSuccess) {
          sm_min = std::min(sm_min, v);
          sm_max = std::max(sm_max, v);
        }
        if (a->DeviceGetClockInfo && a->DeviceGetClockInfo(h, nvml::kClockMem, &v) == nvml::kSuccess) {
          mem_min = std::min(mem_min, v);
          mem_max = std::max(mem_max, v);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });

    unsigned long long e0 = 0, e1 = 0;
    bool counter = a->DeviceGetTotalEnergyConsumption && a->DeviceGetTotalEnergyConsumption(h, &e0) == nvml::kSuccess;
    const auto t0 = std::chrono::steady_clock::now();
    double elapsed = 0;
    std::size_t count = 0;
    // Batches of ~50 ms keep the queue full while bounding the overshoot.
    const double batch_s = std::min(0.05, target_ms * 1e-3);
    const auto batch = static_cast<std::size_t>(std::clamp(std::ceil(batch_s / std::max(seconds, 1e-7)), 1.0, 1e5));
    try {
      while (elapsed * 1e3 < target_ms) {
        for (std::size_t i = 0; i < batch; ++i) run_once();
        dev.finish();
        count += batch;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
    } catch (...) {
      stop = true;
      sampler.join();
      throw;
    }
    counter = counter && a->DeviceGetTotalEnergyConsumption(h, &e1) == nvml::kSuccess && e1 > e0;
    stop = true;
    sampler.join();

    double avg_sampled = 0;
    for (double w : watts) avg_sampled += w;
    if (!watts.empty()) avg_sampled /= static_cast<double>(watts.size());
    const double joules = counter ? (e1 - e0) * 1e-3 : avg_sampled * elapsed;
    if (joules <= 0) {
      energy = {{"available", false}, {"reason", "NVML reported no power or energy for this device"}};
      return;
    }
    nlohmann::json j = {{"available", true},
                        {"avg_power_w", joules / elapsed},
                        {"energy_per_rep_j", joules / static_cast<double>(count)},
                        {"gflop_per_j", prob.flops * static_cast<double>(count) / joules * 1e-9},
                        {"gb_per_j", prob.min_bytes * static_cast<double>(count) / joules * 1e-9},
                        {"reps", count},
                        {"seconds", elapsed},
                        {"method", counter ? "nvmlDeviceGetTotalEnergyConsumption counter over back-to-back reps"
                                           : "nvmlDeviceGetPowerUsage sampled every 10 ms x wall time"}};
    j["idle_power_w"] = idle_w_ ? nlohmann::json(*idle_w_) : nlohmann::json(nullptr);
    j["idle_note"] = "board power read right before the timed reps (NVML averages over up to 1 s)";
    if (!watts.empty()) j["sampled_power_w"] = avg_sampled;
    if (sm_max > 0) j["sm_clock_mhz"] = {{"min", sm_min}, {"max", sm_max}};
    if (mem_max > 0) j["mem_clock_mhz"] = {{"min", mem_min}, {"max", mem_max}};
    energy = std::move(j);
  }

 private:
  std::optional<double> idle_w_;
  std::map<std::string, std::pair<nvml::Device, std::string>> handles_;
  std::mutex mu_;

  // The NVML handle of a CUDA device or an NVIDIA OpenCL device, matched by PCI address;
  // otherwise nullptr and why.
  std::pair<nvml::Device, std::string> handle(const Device& dev) {
    std::lock_guard lock(mu_);
    const auto& i = dev.info();
    if (auto it = handles_.find(i.id); it != handles_.end()) return it->second;
    std::pair<nvml::Device, std::string> out{nullptr, ""};
    auto u = [&](const char* k) { return i.extra.contains(k) ? i.extra[k].get<unsigned>() : 0u; };
    if (i.backend == BackendKind::Cuda && i.extra.contains("pci_bus")) {
      out.first = nvml::device_by_pci(u("pci_domain"), u("pci_bus"), u("pci_device"), &out.second);
    } else if (i.backend == BackendKind::OpenCL && i.extra.contains("pci_bus_id_nv")) {
      const unsigned slot = u("pci_slot_id_nv");
      out.first = nvml::device_by_pci(u("pci_domain_id_nv"), u("pci_bus_id_nv"), slot, &out.second);
      if (!out.first)  // some drivers report (device << 3) | function
        out.first = nvml::device_by_pci(u("pci_domain_id_nv"), u("pci_bus_id_nv"), slot >> 3, &out.second);
    } else {
      out.second = fmt::format("{} is not an NVIDIA GPU (NVML covers CUDA devices and NVIDIA OpenCL devices)", i.id);
    }
    if (out.first) out.second.clear();
    handles_[i.id] = out;
    return out;
  }
};

struct Registrar {
  Registrar() { register_observer(std::make_shared<NvmlEnergy>()); }
} registrar;

}  // namespace

}  // namespace hetbench
