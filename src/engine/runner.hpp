// The sweep runner: variants x devices x precisions x sizes x parameter values, each
// point measured, validated and recorded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/precision.hpp"

namespace hetbench {

struct RunSpec {
  std::string op;
  std::vector<std::string> variants{"all"};  // names, backend/op/name ids, or "all"
  std::string devices = "all";
  std::vector<Precision> precisions{Precision::S, Precision::D};
  std::vector<std::string> sizes;                 // --size tokens
  std::vector<std::string> inputs;                // --matrix tokens, for ops that read an input
  std::map<std::string, std::string> params;     // NAME -> value list or range
  int reps = 20, warmup = 3;
  bool include_transfers = false;
};
nlohmann::json to_json(const RunSpec& r);
// Reads one run from a spec object; throws Error naming `where` and the key.
RunSpec run_spec_from_json(const nlohmann::json& j, const std::string& where);

struct Experiment {
  std::string name;  // folder suffix
  std::vector<RunSpec> runs;
  std::uint64_t seed = 0;
  std::string out_root = "hetbench-results";
  std::string format = "table";  // stdout: table, json, csv, md
  bool best_only = false;        // table: the best variant per device, op, precision and size
  std::string command_line;
  nlohmann::json spec = nlohmann::json::object();
};

// Reads a sweep spec file (docs/spec-format.md); throws Error naming the file and key.
Experiment experiment_from_file(const std::string& path);

// Runs the experiment. Returns the process exit status: 0 when every point passed,
// 1 when a point failed validation or hit an error, 130 when interrupted.
// Bad input throws Error before anything is measured. `dir`, when given, receives the
// experiment folder.
int run_experiment(const Experiment& e, std::filesystem::path* dir = nullptr);

}  // namespace hetbench
