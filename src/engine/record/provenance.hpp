// What experiment.json says about where and how an experiment ran: the build, the host,
// the devices, the experiment as given and its runs (docs/results-format.md).
#pragma once

#include <nlohmann/json.hpp>

#include "engine/plan/plan.hpp"
#include "hetbench/device.hpp"
#include "engine/plan/spec.hpp"

namespace hetbench {

nlohmann::json host_json();  // hostname and OS

// A device's report as experiment.json keeps it (devices[].report: facts and stored
// ceilings, no measurement list).
// The device characterisation lies in the layer above (src/characterize, which runs
// experiments of its own) and registers it here, so no include loop goes from the engine
// to it; without one registered, devices are recorded without a report.
using DeviceReportSource = nlohmann::json (*)(const Device&);
void set_device_report_source(DeviceReportSource source);
// experiment.json as written when the experiment starts (status "running").
nlohmann::json experiment_json(const Experiment& e, const Plan& plan);
// What every experiment.json starts with, whatever recorded it (run, sweep, tune, solve,
// dist): the build, the command line, the name, the seed, the host, the devices, the start
// time and status "running". A command adds what is its own (runs, "solve", "dist", "kind").
nlohmann::json experiment_header(const std::string& name, const std::string& command_line, std::uint64_t seed,
                                 nlohmann::json devices);

}  // namespace hetbench
