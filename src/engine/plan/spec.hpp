// What to measure: one run (an op over variants x devices x precisions x sizes x
// parameter values) and an experiment (runs with a seed and an output folder), from the
// command line or a spec file (docs/spec-format.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
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
  // How long each point is measured (docs/measurement.md): a fixed count of timed
  // repetitions when reps is set, else adaptive until the median's 95 % interval has a
  // relative half-width under max_noise (%), after min_samples samples and min_time
  // seconds of measured time, within timeout seconds (wall) and max_samples samples.
  std::optional<int> reps;
  int warmup = 3;
  double max_noise = 0.5, min_time = 0.5, timeout = 15;
  int min_samples = 10, max_samples = 10000;
  // The repetitions in this many rounds, each on freshly allocated buffers, so that the
  // record holds the spread between placements (docs/measurement.md, "Rounds").
  int rounds = 4;
  // Each point measured in this many processes of its own, one after another, their
  // rounds pooled into one record (docs/measurement.md, "Executions"): the spread then
  // spans what changes between processes too. More than 1 measures in worker processes.
  int executions = 1;
  bool include_transfers = false;
  std::string cache = "hot";  // or "cold": the last-level cache flushed before each repetition
  bool energy = false;        // an extra window for NVML energy when the timed reps are too short
  // tune: a parameter not given spans its whole domain instead of its default.
  bool whole_domains = false;
};
nlohmann::json to_json(const RunSpec& r);
// Reads one run from a spec object; throws Error naming `where` and the key.
RunSpec run_spec_from_json(const nlohmann::json& j, const std::string& where);
// Throws Error naming the first impossible measurement value: as the option
// ("--max-noise 0 is impossible: ...") when `where` is empty, else as `where`: key.
void check_measurement(const RunSpec& r, const std::string& where = "");
// The keys a run may have in a spec file.
const std::set<std::string>& run_spec_keys();

struct Experiment {
  std::string name;  // folder suffix
  std::vector<RunSpec> runs;
  std::uint64_t seed = 0;
  std::string out_root = "hetbench-results";
  std::string format = "table";  // stdout: table, json, csv, md
  std::map<std::string, std::string> report_files;  // --json/--md/--csv FILE: format -> path
  bool best_only = false;        // table: the best variant per device, op, precision and size
  std::string command_line;
  // Tuning database: "" = the default file ($HETBENCH_DB, else the user's data folder),
  // "none" = none, else a path (docs/tuning-db.md).
  std::string db;
  // As given (a spec file's object); experiment.json keeps only what the runs do not
  // hold (name, description, seed, ...), since it records the runs themselves.
  nlohmann::json spec = nlohmann::json::object();
  // The spec file as read, for experiment.json: {"path" (absolute), "fnv1a64" (of the
  // text), "text"}; null when the experiment came from the command line.
  nlohmann::json spec_file;
  // Each point in a worker process per device (docs/isolation.md): a crash or a hang
  // costs that point only. point_timeout: seconds a point's kernel runs may take before
  // the worker is killed; empty: derived per point from its expected time.
  bool isolate = false;
  std::optional<double> point_timeout;
  // --lock-clocks: "" none, else max, base or MHz (engine/measure/clock_lock.hpp); recorded in
  // experiment.json as "clock_lock".
  std::string lock_clocks;
  // A plan not made from `runs` (replay): how a worker makes it again, {"planner": NAME,
  // ...its arguments} (engine/plan/worker_planner.hpp); null for a plan of the runs.
  nlohmann::json worker_plan;
};

// Reads a sweep spec file (docs/spec-format.md); throws Error naming the file and key.
Experiment experiment_from_file(const std::string& path);
// The same from the file's parsed content; `path` names it in messages and gives the
// default name.
Experiment experiment_from_json(const nlohmann::json& j, const std::string& path);

}  // namespace hetbench
