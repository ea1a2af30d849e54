#include <string>

#include <nlohmann/json.hpp>

#include "engine/spec.hpp"
#include "hetbench/error.hpp"
#include "targets/targets.hpp"

namespace hetbench::fuzz {

void spec(std::string_view data) {
  // Invalid JSON is refused by read_json_file before the spec is looked at.
  const auto j = nlohmann::json::parse(data.begin(), data.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return;
  try {
    Experiment e = experiment_from_json(j, "fuzz/spec.json");
    // What was read must write back as a run object that reads the same.
    for (const auto& r : e.runs) (void)run_spec_from_json(to_json(r), "round trip");
  } catch (const Error&) {
  }
}

}  // namespace hetbench::fuzz
