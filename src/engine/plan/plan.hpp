// Planning: which points an experiment measures, in which order, with every input
// checked up front. Pure: it reads device descriptions but touches no device, so bad
// input fails before anything runs and the plan can be tested without hardware.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/plan/spec.hpp"
#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"
#include "tuning/db.hpp"

namespace hetbench {

// One variant with the parameter sets to measure: the given values, with the metadata
// defaults for the others (each point resolves those again: database, precision default).
struct PlannedVariant {
  std::shared_ptr<Variant> variant;
  std::vector<ParamValues> param_sets;
};

// One RunSpec resolved against the registries.
struct RunPlan {
  const RunSpec* spec = nullptr;
  const Op* op = nullptr;
  std::vector<PlannedVariant> variants;  // those that run on a chosen device
  std::vector<std::shared_ptr<Device>> devices;
  std::vector<Sizes> sizes;
  std::vector<nlohmann::json> features;  // per size: Op::features, for the problem class
  // Per size: the reader's message for an input file that could not be read (the size
  // holds only its name); empty for the others. Only with several inputs: a lone bad
  // input throws instead.
  std::vector<std::string> input_errors;
  // --variant auto: the op's own variants (kernel and host code, not libraries) it
  // chooses from per point; empty without auto.
  std::vector<std::shared_ptr<Variant>> auto_pool;
  std::map<std::string, std::vector<long long>> given;  // --param values
};

// One point: a variant with one parameter set on one device, for one precision and size.
struct PlannedPoint {
  std::size_t run = 0;     // index into Plan::runs
  Precision prec = Precision::S;
  std::size_t size = 0;    // index into the run's sizes
  std::size_t device = 0;  // index into the run's devices
  const Variant* variant = nullptr;
  ParamValues params;
  std::map<std::string, std::string> param_source;  // where each value came from
  nlohmann::json auto_choice;  // --variant auto: {"chosen", "reason"}; null otherwise
  std::string skip;  // the violated constraint; empty when the point is measured
  // Its input could not be read (RunPlan::input_errors): recorded as an error with stage
  // "input", never measured; params are the given or metadata values, unresolved.
  std::string input_error;
};

struct Plan {
  std::vector<RunPlan> runs;
  // Ordered by run, precision, size, device, variant, parameter set: consecutive points
  // share a problem and then its device buffers.
  std::vector<PlannedPoint> points;
  // Variants left out on a device in a precision (no FP64, a missing extension), once each.
  std::vector<std::string> left_out;
};

// Resolves one run from the candidate variants of its op and the chosen devices; throws
// Error on unknown variants or parameters, values outside a domain, missing or
// superfluous sizes, impossible repetitions, or a point that cannot fit in memory; and
// InputError on an unreadable input file when it is the run's only input.
RunPlan plan_run(const RunSpec& spec, std::uint64_t seed, const Op& op,
                 const std::vector<std::shared_ptr<Variant>>& candidates,
                 const std::vector<std::shared_ptr<Device>>& devices);
// The points of resolved runs; parameters not given come from `db` when there is one.
Plan plan_points(std::vector<RunPlan> runs, const tuning::TuningLookup* db = nullptr);
// Every run of an experiment from the op, variant and device registries, narrowed by the
// spec's "filter" where it has one (filter_points).
Plan plan_experiment(const Experiment& e, const tuning::TuningLookup* db = nullptr);

// A point's name, what --filter matches: VARIANT_ID/PRECISION/SIZE/DEVICE, for example
// opencl/dot/vec/S/n=1000/opencl:0:0 (SIZE: the sizes as the table shows them, or the
// input file).
std::string point_name(const Plan& plan, const PlannedPoint& p);
// Keeps the points whose name the regular expression (ECMAScript, found anywhere in the
// name) matches; a pattern that starts with '-' keeps those it does not match, as Google
// Benchmark's --benchmark_filter. Throws Error for a malformed pattern (check_filter) or
// one that leaves no point (naming two of the names it could have matched).
void filter_points(Plan& plan, const std::string& pattern);
// Throws Error naming `where` when `pattern` is not a regular expression.
void check_filter(const std::string& pattern, const std::string& where);

}  // namespace hetbench
