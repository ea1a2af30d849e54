// hetbench devices [--json]: every device with its capabilities and peaks.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "hetbench/device.hpp"

namespace hetbench::cli {

namespace {

std::string gb(std::uint64_t b) { return fmt::format("{:.2f} GiB", b / 1073741824.0); }
std::string peak(const std::optional<double>& v, const char* unit) {
  return v ? fmt::format("{:.1f} {}", *v, unit) : std::string("unknown");
}

int show(bool json) {
  nlohmann::json out = nlohmann::json::array();
  nlohmann::json unavailable = nlohmann::json::array();
  for (auto& b : backends()) {
    auto why = b->unavailable_reason();
    if (!why.empty()) unavailable.push_back({{"backend", b->name()}, {"reason", why}});
    for (auto& d : b->devices()) out.push_back(to_json(d->info()));
  }
  if (json) {
    fmt::print("{}\n", nlohmann::json{{"devices", out}, {"unavailable", unavailable}}.dump(2));
    return 0;
  }
  for (auto& b : backends()) {
    for (auto& d : b->devices()) {
      const auto& i = d->info();
      fmt::print("{}  {}\n", i.id, i.name);
      fmt::print("    vendor {}, driver {}, {}\n", i.vendor, i.driver, i.version);
      fmt::print("    type {}, {} compute units at {} MHz\n", i.type, i.compute_units, i.max_clock_mhz);
      fmt::print("    global memory {} (largest allocation {}), local memory {}\n", gb(i.global_mem), gb(i.max_alloc),
                 i.local_mem ? fmt::format("{} KiB", i.local_mem / 1024) : std::string("none"));
      fmt::print("    last-level cache {}\n",
                 i.llc_bytes ? fmt::format("{:.1f} MiB", i.llc_bytes / 1048576.0) : std::string("unknown"));
      fmt::print("    max work-group {}, preferred multiple {}, FP64 {}\n", i.max_wg, i.pref_wg_multiple,
                 i.fp64 ? "yes" : "no");
      fmt::print("    peak S {}, peak D {}, bandwidth {}{}\n", peak(i.peak_gflops_s, "GFLOP/s"),
                 peak(i.peak_gflops_d, "GFLOP/s"), peak(i.peak_gbs, "GB/s"),
                 i.peak_note.empty() ? "" : " (" + i.peak_note + ")");
    }
    auto why = b->unavailable_reason();
    if (!why.empty()) fmt::print("{}\n", why);
  }
  return 0;
}

}  // namespace

Command add_devices(CLI::App& app) {
  auto* sub = app.add_subcommand("devices", "list the host and every OpenCL and CUDA device");
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json, "print JSON");
  return {sub, [json] { return show(*json); }};
}

}  // namespace hetbench::cli
