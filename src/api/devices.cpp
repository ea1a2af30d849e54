#include <algorithm>

#include <fmt/format.h>

#include "backends/host/host_backend.hpp"
#include "backends/opencl/cl_backend.hpp"
#include "hetbench/device.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

#ifdef HETBENCH_HAVE_CUDA
std::shared_ptr<Backend> make_cuda_backend();
#else
namespace {
class NoCudaBackend final : public Backend {
 public:
  std::string name() const override { return "cuda"; }
  std::string unavailable_reason() const override {
    return "CUDA unavailable: this build has no CUDA backend (the CUDA toolkit was not found at build time)";
  }
  std::vector<std::shared_ptr<Device>> devices() override { return {}; }
};
}  // namespace
std::shared_ptr<Backend> make_cuda_backend() { return std::make_shared<NoCudaBackend>(); }
#endif

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

std::shared_ptr<Program> Device::build(const ProgramSource& src) {
  throw PointError(fmt::format("{}: device {} cannot build kernels", src.path, id()));
}

std::vector<std::shared_ptr<Backend>>& backends() {
  static std::vector<std::shared_ptr<Backend>> all{make_host_backend(), make_opencl_backend(), make_cuda_backend()};
  return all;
}

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
    if (hits.empty() && (tok == "opencl" || tok == "cuda"))
      for (auto& d : all)
        if (d->info().backend == tok) hits.push_back(d);
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
      std::string why;
      if (auto r = backends()[2]->unavailable_reason(); tok.rfind("cuda", 0) == 0 && !r.empty()) why = "; " + r;
      throw Error(fmt::format("unknown device '{}': available devices are {}{}", tok, names, why));
    }
    for (auto& h : hits)
      if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  return out;
}

}  // namespace hetbench
