// What to measure: one run (an op over variants x devices x precisions x sizes x
// parameter values) and an experiment (runs with a seed and an output folder), from the
// command line or a spec file (docs/spec-format.md).
#pragma once

#include <cstdint>
#include <map>
#include <set>
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
  // tune: a parameter not given spans its whole domain instead of its default.
  bool whole_domains = false;
};
nlohmann::json to_json(const RunSpec& r);
// Reads one run from a spec object; throws Error naming `where` and the key.
RunSpec run_spec_from_json(const nlohmann::json& j, const std::string& where);
// The keys a run may have in a spec file.
const std::set<std::string>& run_spec_keys();

struct Experiment {
  std::string name;  // folder suffix
  std::vector<RunSpec> runs;
  std::uint64_t seed = 0;
  std::string out_root = "hetbench-results";
  std::string format = "table";  // stdout: table, json, csv, md
  bool best_only = false;        // table: the best variant per device, op, precision and size
  std::string command_line;
  // As given (a spec file's object); experiment.json keeps only what the runs do not
  // hold (name, description, seed, ...), since it records the runs themselves.
  nlohmann::json spec = nlohmann::json::object();
};

// Reads a sweep spec file (docs/spec-format.md); throws Error naming the file and key.
Experiment experiment_from_file(const std::string& path);

}  // namespace hetbench
