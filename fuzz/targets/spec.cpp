#include <string>

#include <nlohmann/json.hpp>

#include "engine/record/query.hpp"
#include "engine/plan/spec.hpp"
#include "hetbench/error.hpp"
#include "targets/targets.hpp"
#include "util/json_file.hpp"

namespace hetbench::fuzz {

namespace {

// A few records of two groups, one failed, for the spec's targets to be evaluated over.
const std::vector<nlohmann::json>& sample_records() {
  static const std::vector<nlohmann::json> r = {
      {{"op", "copy"}, {"device", "host"}, {"precision", "S"}, {"status", "ok"}, {"gbs", 10.0}, {"kind", "kernel"},
       {"sizes", {{"n", 1024}}}, {"params", {{"WG", 64}}}, {"timing", {{"seconds", {{"median", 1e-3}}}}}},
      {{"op", "copy"}, {"device", "host"}, {"precision", "S"}, {"status", "ok"}, {"gbs", 20.0}, {"kind", "library"},
       {"sizes", {{"n", 1024}}}, {"timing", {{"seconds", {{"median", 5e-4}}}}}},
      {{"op", "gemm"}, {"device", "host"}, {"precision", "D"}, {"status", "failed"}, {"sizes", {{"m", 3}}}}};
  return r;
}

}  // namespace

void spec(std::string_view data) {
  try {
    // As experiment_from_file reads a file: invalid JSON is an Error too.
    const auto j = parse_json_text(std::string(data), "fuzz/spec.json");
    // `hetbench check`'s targets, read and evaluated (a target may select nothing).
    for (const auto& c : query::checks_of(j, "fuzz/spec.json")) (void)query::evaluate(c, sample_records()).to_json(c);
    Experiment e = experiment_from_json(j, "fuzz/spec.json");
    // What was read must write back as a run object that reads the same.
    for (const auto& r : e.runs) (void)run_spec_from_json(to_json(r), "round trip");
  } catch (const Error&) {
  }
}

}  // namespace hetbench::fuzz
