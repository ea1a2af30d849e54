// Planning: which points an experiment measures, in which order, with every input
// checked up front. Pure: it reads device descriptions but touches no device, so bad
// input fails before anything runs and the plan can be tested without hardware.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/spec.hpp"
#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

// One variant with the parameter sets to measure.
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
};

// One point: a variant with one parameter set on one device, for one precision and size.
struct PlannedPoint {
  std::size_t run = 0;     // index into Plan::runs
  Precision prec = Precision::S;
  std::size_t size = 0;    // index into the run's sizes
  std::size_t device = 0;  // index into the run's devices
  const Variant* variant = nullptr;
  ParamValues params;
  std::string skip;  // the violated constraint; empty when the point is measured
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
// superfluous sizes, impossible repetitions, or a point that cannot fit in memory.
RunPlan plan_run(const RunSpec& spec, std::uint64_t seed, const Op& op,
                 const std::vector<std::shared_ptr<Variant>>& candidates,
                 const std::vector<std::shared_ptr<Device>>& devices);
// The points of resolved runs.
Plan plan_points(std::vector<RunPlan> runs);
// Every run of an experiment from the op, variant and device registries.
Plan plan_experiment(const Experiment& e);

}  // namespace hetbench
