#include "engine/record/provenance.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "util/build_info.hpp"

#include "engine/record/results.hpp"
#include "tuning/db.hpp"

namespace hetbench {

nlohmann::json host_json() {
  utsname u{};
  uname(&u);
  std::string os = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  std::ifstream rel("/etc/os-release");
  std::string line;
  while (std::getline(rel, line))
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      os = line.substr(12);
      os.erase(std::remove(os.begin(), os.end(), '"'), os.end());
      os += fmt::format(" ({} {})", u.release, u.machine);
    }
  return {{"hostname", u.nodename}, {"os", os}};
}

namespace {
DeviceReportSource report_source = nullptr;
}  // namespace

void set_device_report_source(DeviceReportSource source) { report_source = source; }

nlohmann::json experiment_json(const Experiment& e, const Plan& plan) {
  nlohmann::json devices = nlohmann::json::array();
  std::set<std::string> seen;
  for (const auto& r : plan.runs)
    for (const auto& d : r.devices)
      if (seen.insert(d->id()).second) {
        // The device report's facts and stored ceilings (docs/memory-system.md), for the
        // HTML report's Devices section; its measurements belong to --measure's folder.
        auto dj = to_json(d->info());
        if (report_source) dj["report"] = report_source(*d);
        devices.push_back(dj);
      }
  // The runs are recorded once, as resolved in "runs"; "spec" keeps what lies beside them.
  nlohmann::json spec = e.spec;
  if (spec.is_object()) {
    spec.erase("runs");
    for (const auto& k : run_spec_keys()) spec.erase(k);
  }
  // What each variant's code was (source and metadata), so that a replay can tell a kernel
  // that changed since (docs/compare.md).
  nlohmann::json hashes = nlohmann::json::object();
  for (const auto& p : plan.points)
    if (p.variant && !hashes.contains(p.variant->id())) hashes[p.variant->id()] = tuning::variant_hash(*p.variant);
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : e.runs) runs.push_back(to_json(r));
  // Inputs that could not be read: their points are error records (stage "input").
  nlohmann::json unread = nlohmann::json::array();
  for (const auto& r : plan.runs)
    for (std::size_t i = 0; i < r.input_errors.size(); ++i)
      if (!r.input_errors[i].empty()) unread.push_back({{"input", r.sizes[i].input}, {"message", r.input_errors[i]}});
  nlohmann::json j = experiment_header(e.name, e.command_line, e.seed, std::move(devices));
  j["spec"] = spec;
  j["spec_file"] = e.spec_file;
  j["runs"] = runs;
  j["variant_hashes"] = hashes;
  if (!unread.empty()) j["unreadable_inputs"] = unread;
  return j;
}

nlohmann::json experiment_header(const std::string& name, const std::string& command_line, std::uint64_t seed,
                                 nlohmann::json devices) {
  return {{"hetbench_version", HETBENCH_VERSION},
          {"git_commit", git_commit()},
          {"command_line", command_line},
          {"name", name},
          {"seed", seed},
          {"host", host_json()},
          {"compiler", HETBENCH_COMPILER},
          {"devices", std::move(devices)},
          {"start_time", now_iso8601()},
          {"status", "running"}};
}

}  // namespace hetbench
