// An experiment folder read back for compare and replay: experiment.json and every point
// of results.jsonl, checked strictly (docs/compare.md says what is refused and why).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hetbench {

struct RecordedExperiment {
  std::filesystem::path dir;
  nlohmann::json experiment;           // experiment.json
  std::vector<nlohmann::json> points;  // results.jsonl, in order
  std::string label() const;           // the folder's name
};

// Throws Error naming the folder, file, line and key: no experiment.json (not an
// experiment), invalid JSON, a record without the keys that identify a point, timing
// samples that are not positive numbers or disagree with their count, and fewer records
// than a complete experiment.json says it holds. A torn last line is skipped (with a
// note on stderr) only when the experiment did not complete: a run killed mid-write.
RecordedExperiment read_experiment(const std::filesystem::path& dir);

}  // namespace hetbench
