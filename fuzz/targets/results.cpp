// results.jsonl as every reader takes it (read_results: resume, tune --resume, export,
// ceilings), then each record as a results.csv row (what Reopen rebuilds the CSV from).
#include <sstream>
#include <string>

#include "engine/record/results.hpp"
#include "hetbench/error.hpp"
#include "targets/targets.hpp"

namespace hetbench::fuzz {

void results(std::string_view data) {
  std::istringstream in{std::string(data)};
  try {
    for (const auto& r : read_results(in, "fuzz/results.jsonl")) (void)ExperimentWriter::csv_row(r);
  } catch (const Error&) {
  }
}

}  // namespace hetbench::fuzz
