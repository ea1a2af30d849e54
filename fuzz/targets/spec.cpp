#include <string>

#include <nlohmann/json.hpp>

#include "engine/spec.hpp"
#include "hetbench/error.hpp"
#include "targets/targets.hpp"
#include "util/json_file.hpp"

namespace hetbench::fuzz {

void spec(std::string_view data) {
  try {
    // As experiment_from_file reads a file: invalid JSON is an Error too.
    const auto j = parse_json_text(std::string(data), "fuzz/spec.json");
    Experiment e = experiment_from_json(j, "fuzz/spec.json");
    // What was read must write back as a run object that reads the same.
    for (const auto& r : e.runs) (void)run_spec_from_json(to_json(r), "round trip");
  } catch (const Error&) {
  }
}

}  // namespace hetbench::fuzz
