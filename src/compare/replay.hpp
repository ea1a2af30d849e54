// A replay: recorded points planned again exactly (op, variant, parameters pinned, sizes
// or the same matrix, seed, measurement policy, device) from their records, with every
// difference from the recorded context said before anything runs (docs/compare.md).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compare/context.hpp"
#include "compare/folder.hpp"
#include "compare/pairing.hpp"
#include "engine/plan/plan.hpp"
#include "engine/plan/spec.hpp"

namespace hetbench {

class Replay {
 public:
  // `points`: the recorded point numbers to replay, empty for all. Throws Error when a
  // point cannot be replayed exactly: an unknown point, a variant no longer built, a
  // parameter outside its domain now, a matrix file missing or changed (its SHA-256), a
  // device not present, points of different seeds.
  Replay(const RecordedExperiment& recorded, const std::vector<int>& points);
  Replay(const Replay&) = delete;
  Replay& operator=(const Replay&) = delete;

  const std::vector<ContextDifference>& differences() const { return diffs_; }
  // The experiment to run (runs hold the measurement settings; its plan points into them).
  Experiment& experiment() { return e_; }
  const Plan& plan() const { return plan_; }
  // What a worker needs to plan the same points (Experiment::worker_plan).
  static nlohmann::json worker_plan(const RecordedExperiment& recorded, const std::vector<int>& points);
  // The recorded points in the plan's order: the replay's point i replays recorded[i].
  const std::vector<const nlohmann::json*>& recorded() const { return recorded_; }

 private:
  Experiment e_;
  Plan plan_;
  std::vector<const nlohmann::json*> recorded_;
  std::vector<ContextDifference> diffs_;
};

// The measurement policy a point was taken with: its timing record (stopping rule,
// warm-up, transfers, cache, energy window), else its op's recorded run.
RunSpec recorded_measurement(const nlohmann::json& point, const nlohmann::json& experiment);

// Recorded against replayed, pair by pair: the verdicts; `mismatches`, one line per point
// whose identity (op, variant, device name, precision, sizes, parameters) or validation
// differs; `clocks`, one line per point whose median SM clock (NVIDIA, per sample) moved
// by more than 1 %, which explains a verdict rather than invalidating it.
struct ReplayCheck {
  Comparison comparison;
  std::vector<std::string> mismatches, clocks;
};
ReplayCheck compare_replay(const RecordedExperiment& recorded, const Replay& replay, const RecordedExperiment& replayed,
                           double threshold, double max_threshold = kMaxThreshold);

}  // namespace hetbench
