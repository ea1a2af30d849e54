// Device descriptions, the backend registry and --device resolution. Backends register
// themselves (BackendRegistrar in their own source), so nothing here knows one.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

namespace {

using Factory = std::function<std::shared_ptr<Backend>()>;

std::map<BackendKind, Factory>& factories() {
  static std::map<BackendKind, Factory> f;
  return f;
}

// Stands in for a backend this build left out, so that every kind is listed with a reason.
class AbsentBackend final : public Backend {
 public:
  explicit AbsentBackend(BackendKind k) : kind_(k) {}
  BackendKind kind() const override { return kind_; }
  std::string unavailable_reason() const override {
    const std::string api = kind_ == BackendKind::Cuda ? "CUDA" : kind_ == BackendKind::OpenCL ? "OpenCL" : "host";
    return fmt::format("{0} unavailable: this build has no {0} backend (the {0} toolkit was not found at build time)",
                       api);
  }
  std::vector<std::shared_ptr<Device>> devices() override { return {}; }

 private:
  BackendKind kind_;
};

}  // namespace

void register_backend(BackendKind kind, Factory make) {
  if (!factories().emplace(kind, std::move(make)).second)
    throw Error(fmt::format("backend {} is registered twice", to_string(kind)));
}

bool DeviceInfo::has_extension(const std::string& e) const {
  return std::find(extensions.begin(), extensions.end(), e) != extensions.end();
}

nlohmann::json to_json(const DeviceInfo& d) {
  auto opt = [](const std::optional<double>& v) -> nlohmann::json {
    return v ? nlohmann::json(*v) : nlohmann::json("unknown");
  };
  return {{"id", d.id},
          {"backend", d.backend},
          {"name", d.name},
          {"vendor", d.vendor},
          {"driver", d.driver},
          {"version", d.version},
          {"type", d.type},
          {"compute_units", d.compute_units},
          {"max_clock_mhz", d.max_clock_mhz},
          {"global_mem_bytes", d.global_mem},
          {"max_alloc_bytes", d.max_alloc},
          {"local_mem_bytes", d.local_mem},
          {"local_mem_launch_bytes", d.local_mem_launch},
          {"constant_mem_bytes", d.constant_mem},
          {"llc_bytes", d.llc_bytes},
          {"max_work_group_size", d.max_wg},
          {"preferred_work_group_multiple", d.pref_wg_multiple},
          {"fp64", d.fp64},
          {"peak_gflops_s", opt(d.peak_gflops_s)},
          {"peak_gflops_d", opt(d.peak_gflops_d)},
          {"peak_gbs", opt(d.peak_gbs)},
          {"peak_note", d.peak_note},
          {"extensions", d.extensions},
          {"extra", d.extra}};
}

std::vector<std::shared_ptr<Backend>>& backends() {
  static std::vector<std::shared_ptr<Backend>> all = [] {
    std::vector<std::shared_ptr<Backend>> v;
    for (auto k : kBackendKinds) {
      auto it = factories().find(k);
      v.push_back(it != factories().end() ? it->second() : std::make_shared<AbsentBackend>(k));
    }
    return v;
  }();
  return all;
}

Backend& backend(BackendKind kind) { return *backends().at(static_cast<std::size_t>(kind)); }

std::vector<std::shared_ptr<Device>> all_devices() {
  std::vector<std::shared_ptr<Device>> out;
  for (auto& b : backends())
    for (auto& d : b->devices()) out.push_back(d);
  return out;
}

std::vector<std::shared_ptr<Device>> resolve_devices(const std::string& spec) {
  auto all = all_devices();
  if (spec == "all" || spec.empty()) return all;
  std::vector<std::shared_ptr<Device>> out;
  std::size_t start = 0;
  while (start <= spec.size()) {
    auto end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    std::string tok = spec.substr(start, end - start);
    start = end + 1;
    std::vector<std::shared_ptr<Device>> hits;
    for (auto& d : all)
      if (d->id() == tok) hits.push_back(d);
    if (auto b = parse_backend(tok); hits.empty() && b)
      for (auto& d : all)
        if (d->info().backend == *b) hits.push_back(d);
    if (hits.empty()) {
      auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
        return s;
      };
      for (auto& d : all)
        if (lower(d->info().name).find(lower(tok)) != std::string::npos) hits.push_back(d);
      if (hits.size() > 1) {
        std::string names;
        for (auto& h : hits) names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", h->id(), h->info().name);
        throw Error(fmt::format("device '{}' is ambiguous: it matches {}", tok, names));
      }
    }
    if (hits.empty()) {
      std::string names;
      for (auto& d : all) names += fmt::format("{}{}", names.empty() ? "" : ", ", d->id());
      // "cuda:1" when CUDA is unusable: say why.
      std::string why;
      if (auto b = parse_backend(tok.substr(0, tok.find(':'))))
        if (auto r = backend(*b).unavailable_reason(); !r.empty()) why = "; " + r;
      throw Error(fmt::format("unknown device '{}': available devices are {}{}", tok, names, why));
    }
    for (auto& h : hits)
      if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  return out;
}

std::unique_ptr<Buffer> upload_copy(Device& dev, const void* data, std::size_t bytes, std::size_t at_least) {
  auto b = dev.alloc(std::max(bytes, at_least));
  if (bytes) b->upload(data);
  return b;
}

std::string launch_misfit(const DeviceInfo& d, const Dims& global, const Dims& local) {
  if (global.empty() || global.size() > 3) return fmt::format("a launch has 1 to 3 dimensions, not {}", global.size());
  if (!local.empty() && local.size() != global.size())
    return fmt::format("the local size has {} dimensions, the global size {}", local.size(), global.size());
  double items = 1;
  for (std::size_t i = 0; i < global.size(); ++i) {
    // 0 is an empty launch, which the backends skip (a reduction over nothing).
    if (auto why = launch_dim_misfit(static_cast<double>(global[i]), true); !why.empty())
      return fmt::format("global size in dimension {}: {}", i, why);
    items *= static_cast<double>(global[i]);
  }
  if (items > static_cast<double>(kMaxLaunchItems))
    return fmt::format("{:.3g} work-items in all, more than the {} a launch may ask", items, kMaxLaunchItems);
  std::size_t group = 1;
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (auto why = launch_dim_misfit(static_cast<double>(local[i]), false); !why.empty())
      return fmt::format("local size in dimension {}: {}", i, why);
    group *= local[i];
  }
  if (d.max_wg && group > d.max_wg)
    return fmt::format("a work-group of {} work-items is more than the {} of {}", group, d.max_wg, d.id);
  return "";
}

std::string launch_dim_misfit(double v, bool empty_ok) {
  const double lo = empty_ok ? 0 : 1;
  if (v != std::floor(v)) return fmt::format("{} is not a whole number", v);
  if (v < lo || v > static_cast<double>(kMaxLaunchDim)) return fmt::format("{} is outside {} to {}", v, lo, kMaxLaunchDim);
  return "";
}

std::string buffer_misfit(const DeviceInfo& d, double bytes) {
  const double limit = d.max_alloc ? static_cast<double>(d.max_alloc) : kAddressableBytes;
  if (bytes < 0 || bytes > limit)
    return fmt::format("{:.4g} bytes is more than the largest allocation of {} ({:.4g} bytes)", bytes, d.id, limit);
  return "";
}

}  // namespace hetbench
