// The device report: a device's facts (device_facts: what deviceQuery and `nvidia-smi -q`
// print) beside its stored ceilings and the report's measurements, as JSON and as aligned
// text (`hetbench devices --report`, docs/memory-system.md). experiment.json records it
// per device, so the HTML report has a Devices section.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "api/device_facts.hpp"

namespace hetbench {

// {"sections": [{"name", "facts": [{key, label, value, unit, note}]}], "values": {"section.key": value}};
// sections in a fixed order (device, compute, clocks, memory, isa, link, power, modes,
// software, peaks), then any other in order of appearance.
nlohmann::json facts_json(const DeviceFacts& facts);

// format "hetbench-device-report-1", id, backend, name, the facts, "ceilings" (the stored
// ones, or null with "ceilings_note" saying how to measure them) and "measurements" (the
// planned list, each "not measured" with its reason, until --measure fills them).
nlohmann::json device_report_json(const Device& d);

// The report as text: a heading per device, a block per section, every value in one column.
std::string device_report_text(const nlohmann::json& report);

}  // namespace hetbench
