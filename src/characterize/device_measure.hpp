// The measured part of the device report (`hetbench devices --report DEVICE --measure`): a
// short fixed list of measurements, each an ordinary op run through the runner, and what
// to take from its records. An entry whose op this build lacks is listed as not measured,
// so ops added later appear without a change here (docs/memory-system.md).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/plan/spec.hpp"
#include "hetbench/device.hpp"

namespace hetbench {

struct ReportMeasurement {
  std::string name;   // key in the report's "measurements"
  std::string label;  // what the text shows
  std::string op;     // a registered op's name
  std::string sizes_gpu, sizes_cpu;  // --size tokens for accelerators and for CPUs
  std::string metric;  // record key: at the top level ("gbs") or inside one of its objects
  std::string unit;
  bool lower_is_better = false;
  bool per_size = false;  // one figure per size (a curve), else the best over every point
};
const std::vector<ReportMeasurement>& report_measurements();

// Why `m` cannot be measured on `d` in this build ("op pchase not in this build", "op X
// has no opencl variant", "op X rejects sizes ..."), or "" when it can.
std::string not_measurable(const ReportMeasurement& m, const Device& d);

// Every entry for `d` with status "not measured" and the reason (or "run with --measure").
nlohmann::json planned_measurements(const Device& d);

struct MeasureOptions {
  std::string out = "hetbench-results";
  int reps = 5, warmup = 1;
  std::uint64_t seed = 0;
  std::string command_line;
};

// The measurements as one experiment (an ordinary one, which the caller runs: the
// characterisation of a device sits above the engine that measures it) and which entries
// of each device it holds, in the given order.
struct DeviceMeasurement {
  Experiment experiment;  // no runs: nothing here can be measured
  std::vector<std::vector<const ReportMeasurement*>> planned;
};
DeviceMeasurement plan_device_measurement(const std::vector<std::shared_ptr<Device>>& devices, const MeasureOptions& o);
// Each device's measurements from the experiment's records in `dir` (empty: none ran).
std::vector<nlohmann::json> measured_figures(const std::vector<std::shared_ptr<Device>>& devices,
                                             const DeviceMeasurement& plan, const std::filesystem::path& dir);

// The figures of entry `m` on device `dev` in an experiment's records.
nlohmann::json extract_measurement(const ReportMeasurement& m, const std::string& dev,
                                   const std::vector<nlohmann::json>& records);

}  // namespace hetbench
