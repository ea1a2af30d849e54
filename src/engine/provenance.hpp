// What experiment.json says about where and how an experiment ran: the build, the host,
// the devices, the experiment as given and its runs (docs/results-format.md).
#pragma once

#include <nlohmann/json.hpp>

#include "engine/plan.hpp"
#include "engine/spec.hpp"

namespace hetbench {

nlohmann::json host_json();  // hostname and OS
// experiment.json as written when the experiment starts (status "running").
nlohmann::json experiment_json(const Experiment& e, const Plan& plan);

}  // namespace hetbench
