// A shipped tuning file made from a campaign spec (bench/tuned/*.json; docs/tuning-db.md,
// "Shipped entries"): each task tunes its variant over its shapes into a fresh database,
// which is written out less the entries that do not beat the op's own choice (the GEMM
// shape model's, the tuning's first start) beyond the noise. `hetbench db ship`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/plan/spec.hpp"
#include "tune/tuner.hpp"

namespace hetbench::tune {

struct ShipTask {
  RunSpec run;                      // op, variant, precision, fixed params, measurement; sizes from the shapes
  std::vector<std::string> shapes;  // size tokens, in the order of the shape files, once each
  std::string strategy = "annealing";
  Budget budget;
};

struct ShipCampaign {
  std::filesystem::path spec;    // the file read
  std::string about;
  std::filesystem::path output;  // the shipped file, relative paths from the spec's folder
  std::vector<ShipTask> tasks;
};

// Reads a campaign spec: "about", "devices", "output", optional measurement keys of a run
// (reps, warmup, rounds, ...) as defaults, and "tasks", each a run (op, variants,
// precisions, params, measurement keys) with "shapes" (files of size tokens, a token a
// line, '#' comments; relative to the spec's folder), "strategy" and "budget". Error
// naming the file and the key.
ShipCampaign read_ship_campaign(const std::filesystem::path& spec);

// Whether a tuned entry ships: the best found must beat the configuration the op would
// choose without it (the tuning's first start, `model`) beyond both confidence intervals;
// `why` says why not. `best` and `model` are point records (results.jsonl).
bool beats_the_model(const nlohmann::json& best, const nlohmann::json& model, std::string& why);

struct ShipSummary {
  std::size_t tuned = 0, left_out = 0, entries = 0, shipped = 0;
};

// Runs the campaign (experiments under out/exp, the database out/campaign.db, no
// shipped layer and no user database read), then writes the shipped file. Shapes not
// started within `deadline_s` seconds (0: none) are left out and named on stderr.
ShipSummary ship_campaign(const ShipCampaign& c, const std::filesystem::path& out, double deadline_s,
                          std::uint64_t seed);

}  // namespace hetbench::tune
