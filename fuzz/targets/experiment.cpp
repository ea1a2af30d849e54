// experiment.json as a resume reads it: tune --resume's recorded_tuning, and the Reopen of
// the experiment folder that every resume does (which rewrites the file).
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/record/results.hpp"
#include "hetbench/error.hpp"
#include "targets/scratch_dir.hpp"
#include "targets/targets.hpp"
#include "tune/tuner.hpp"
#include "util/json_file.hpp"

namespace hetbench::fuzz {

void experiment(std::string_view data) {
  try {
    (void)tune::recorded_tuning(parse_json_text(std::string(data), "fuzz/experiment.json"), "fuzz",
                                "fuzz/experiment.json");
  } catch (const Error&) {
  }
  const auto dir = scratch_dir() / "experiment";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "experiment.json", std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
  // One whole record and one cut short, as a kill mid-write leaves them.
  std::ofstream(dir / "results.jsonl") << "{\"point\":0,\"status\":\"ok\"}\n{\"point\":1,\"sta";
  try {
    ExperimentWriter w(ExperimentWriter::Reopen{}, dir);
  } catch (const Error&) {
  }
}

}  // namespace hetbench::fuzz
