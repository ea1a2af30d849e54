// What differs between the context an experiment recorded and the one a replay runs in:
// the build (commit, version, compiler), the host, each device (driver, clocks, every
// property `hetbench devices` reports), each variant's code and each matrix file.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compare/folder.hpp"
#include "hetbench/device.hpp"

namespace hetbench {

struct ContextDifference {
  std::string what;           // "git_commit", "device cuda:0 driver", "variant opencl/dot/x code", ...
  std::string recorded, now;  // as text
  bool unknown = false;       // not recorded: a difference cannot be ruled out
};
std::string to_string(const ContextDifference& d);
nlohmann::json to_json(const ContextDifference& d);

// Keys of two JSON objects whose values differ, flattened ("extra.sm_clock_mhz"), each
// as a difference named `prefix` + key.
void json_differences(const std::string& prefix, const nlohmann::json& recorded, const nlohmann::json& now,
                      std::vector<ContextDifference>& out);

// The build and the host: git_commit, hetbench_version, compiler, host.
std::vector<ContextDifference> build_differences(const nlohmann::json& experiment);

}  // namespace hetbench
