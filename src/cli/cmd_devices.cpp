// hetbench devices [--json]: every device with its capabilities and peaks;
// hetbench devices --report DEVICE [--measure]: the device report (docs/memory-system.md).
#include <fstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "engine/runner.hpp"
#include "characterize/device_measure.hpp"
#include "characterize/device_report.hpp"
#include "hetbench/error.hpp"
#include "util/random.hpp"

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
      // Where a launch may ask for more than a kernel declares (CUDA's opt-in shared memory).
      std::string local = i.local_mem ? fmt::format("{} KiB", i.local_mem / 1024) : std::string("none");
      if (i.local_mem_launch > i.local_mem) local += fmt::format(" ({} KiB sized at launch)", i.local_mem_launch / 1024);
      fmt::print("    global memory {} (largest allocation {}), local memory {}\n", gb(i.global_mem), gb(i.max_alloc), local);
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

struct ReportOpts {
  bool json = false, measure = false;
  std::string device;
  MeasureOptions measure_opts;
};

std::string device_ids() {
  std::string ids;
  for (const auto& d : all_devices()) ids += (ids.empty() ? "" : ", ") + d->id();
  return ids;
}

int report(const ReportOpts& o) {
  if (o.device.empty())
    throw Error(fmt::format("--report needs a device: one of {}, or all", device_ids()));
  const auto devices = resolve_devices(o.device);
  std::vector<nlohmann::json> reports;
  for (const auto& d : devices) reports.push_back(device_report_json(*d));
  int rc = 0;
  if (o.measure) {
    const auto plan = plan_device_measurement(devices, o.measure_opts);
    std::filesystem::path dir;
    if (!plan.experiment.runs.empty()) rc = run_experiment(plan.experiment, &dir);
    const auto figures = measured_figures(devices, plan, dir);
    for (std::size_t k = 0; k < reports.size(); ++k) {
      reports[k]["measurements"] = figures[k];
      if (!dir.empty()) reports[k]["experiment"] = std::filesystem::absolute(dir).string();
    }
    // Beside the records, so that the HTML report shows the measured figures too.
    if (!dir.empty()) {
      std::ofstream f(dir / "device-report.json");
      f << nlohmann::json{{"reports", reports}}.dump(2) << "\n";
      if (!f) throw Error(fmt::format("cannot write '{}'", (dir / "device-report.json").string()));
    }
  }
  if (o.json) {
    fmt::print("{}\n", nlohmann::json{{"reports", reports}}.dump(2));
  } else {
    for (std::size_t k = 0; k < reports.size(); ++k) fmt::print("{}{}", k ? "\n" : "", device_report_text(reports[k]));
  }
  return rc;
}

// The command line for the --measure experiment's record, read back from the kernel:
// add_devices is not handed it as the experiment commands are.
std::string own_command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string s, arg;
  while (std::getline(f, arg, '\0')) s += (s.empty() ? "" : " ") + arg;
  return s;
}

}  // namespace

Command add_devices(CLI::App& app) {
  auto* sub = app.add_subcommand("devices", "list the host and every OpenCL and CUDA device");
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json, "print JSON");
  auto r = std::make_shared<ReportOpts>();
  sub->add_option("--report", r->device,
                  "the device report (facts, stored ceilings, measurements) of DEVICE: host, opencl:P:D, cuda:N, "
                  "a unique name substring, or all")
      ->expected(0, 1);
  sub->add_flag("--measure", r->measure, "with --report: run the report's measurements (an experiment folder)");
  sub->add_option("--out", r->measure_opts.out, "with --measure: results root folder")->capture_default_str();
  sub->add_option("--reps", r->measure_opts.reps, "with --measure: timed repetitions per point")->capture_default_str();
  sub->add_option("--warmup", r->measure_opts.warmup, "with --measure: untimed runs before timing")
      ->capture_default_str();
  sub->add_option("--seed", r->measure_opts.seed, "with --measure: seed of the inputs (default: a fresh one)");
  return {sub, [json, r, sub] {
            if (!sub->count("--report")) {
              for (const char* o : {"--measure", "--out", "--reps", "--warmup", "--seed"})
                if (sub->count(o)) throw Error(fmt::format("{} needs --report DEVICE", o));
              return show(*json);
            }
            r->json = *json;
            if (!sub->count("--seed")) r->measure_opts.seed = fresh_seed();
            r->measure_opts.command_line = own_command_line();
            return report(*r);
          }};
}

}  // namespace hetbench::cli
