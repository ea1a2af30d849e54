// hetbench tune: every problem (device x precision x size or matrix) and every chosen
// variant gets its parameters tuned by a strategy (tune/search.hpp) over the space the
// plan builds, each evaluation measured by the engine as `run` measures a point and
// recorded in the experiment folder (docs/tuning.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/plan/spec.hpp"
#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"
#include "ops/layout_ref.hpp"
#include "tune/budget.hpp"

namespace hetbench::tune {

struct TuneSettings {
  std::string strategy = "random";
  Budget budget;
  std::uint64_t seed = 0;  // drives the strategies and the inputs
};
nlohmann::json to_json(const TuneSettings& s);

// The outcome of tuning one variant on one problem: what a tuning database entry needs.
struct TuningResult {
  std::string op, device, device_name, variant, variant_id, backend, precision;
  nlohmann::json sizes, features;  // as in the point records
  bool found = false;              // false when no configuration passed
  ParamValues params;              // the best (simplest among the tied)
  double median_s = 0, ci95_lo_s = 0, ci95_hi_s = 0;
  // The best's rates with the interval that the time's interval gives them.
  std::optional<double> gbs, gbs_lo, gbs_hi, gflops, gflops_lo, gflops_hi;
  int point = -1;  // the best's record in results.jsonl
  std::string experiment;  // the folder
  std::string strategy;
  std::uint64_t seed = 0;
  // The best's layout (ops that place records by one), with the sizes' layout in `sizes`.
  std::optional<LayoutRef> layout;
  std::size_t evaluations = 0, space = 0, pruned = 0, ties = 0;
  double wall_s = 0;
  // The planned objects themselves, for a database key (device identity, variant hash,
  // storage and problem class); valid only during the on_result call.
  const Device* device_ref = nullptr;
  const Variant* variant_ref = nullptr;
  const Op* op_ref = nullptr;
  Sizes problem;
  Precision prec = Precision::S;
};
nlohmann::json to_json(const TuningResult& r);

using ResultHook = std::function<void(const TuningResult&)>;

// One problem and variant about to be tuned, as a StartsHook sees it.
struct TaskRef {
  const Device& device;
  const Variant& variant;
  const Op& op;
  Precision prec;
  const Sizes& problem;
  std::uint64_t seed;  // the inputs' seed (a matrix generator's features need it)
};
// Parameter sets to measure first on a problem, best first: a tuning database's entries
// of the variant on nearby problems (tune/db_hook.hpp). The strategies start from them.
using StartsHook = std::function<std::vector<ParamValues>(const TaskRef&)>;

// The layout's axis in a tuning space: values index the task's layouts (docs/tuning.md).
inline constexpr const char* kLayoutAxis = "LAYOUT";

// " over layouts aos, soa" for the layouts a task spans; empty for none.
std::string layouts_text(const std::vector<std::string>& layouts);


// Tunes the experiment (its runs get whole_domains set). With `resume`, continues the
// tuning recorded in that folder: recorded evaluations are replayed from results.jsonl
// and nothing is measured twice. `on_result` is called once per problem and variant.
// `starts` gives each task's parameter sets to measure first (after the metadata
// defaults); they are recorded with the task's first evaluation, and a resume takes them
// from there rather than asking again, so that it repeats the same search.
// Returns the exit status: 0, or 130 when interrupted. Bad input throws Error.
int tune_experiment(Experiment e, const TuneSettings& s, const std::optional<std::filesystem::path>& resume,
                    const ResultHook& on_result = {}, const StartsHook& starts = {});

// The experiment and settings recorded by an earlier tune in `dir`'s experiment.json;
// throws Error naming the file when it holds no tuning.
std::pair<Experiment, TuneSettings> recorded_tuning(const std::filesystem::path& dir);
// `dir`'s experiment.json, parsed; an error naming the folder where there is none.
nlohmann::json recorded_experiment(const std::filesystem::path& dir);
// The same from experiment.json's parsed content; `path` names the file in messages.
std::pair<Experiment, TuneSettings> recorded_tuning(const nlohmann::json& j, const std::filesystem::path& dir,
                                                    const std::string& path);

}  // namespace hetbench::tune
