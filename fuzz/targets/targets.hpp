// The fuzz targets' bodies, one per input format. Each takes one input, feeds it to the
// code under test and returns normally when that code accepts it or refuses it with
// hetbench::Error (the documented way to refuse bad input); anything else (another
// exception, a sanitizer report, a hang) is a bug. libFuzzer drives them through
// fuzz/main.cpp; tests/cli/test_fuzz_regressions.cpp replays fuzz/regressions/ through them
// in the ordinary build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hetbench::fuzz {

void matrix_market(std::string_view data);  // a .mtx file's text
void metadata(std::string_view data);       // a kernel metadata JSON file
void spec(std::string_view data);           // a sweep spec file
void expr(std::string_view data);           // an expression, --size and --param lists
void results(std::string_view data);        // results.jsonl
void experiment(std::string_view data);     // experiment.json, as tune --resume reads it
void layout(std::string_view data);         // a layout file, text or JSON

struct Target {
  const char* name;
  void (*run)(std::string_view);
};
inline constexpr Target kTargets[] = {{"matrix_market", matrix_market}, {"metadata", metadata},
                                      {"spec", spec},                   {"expr", expr},
                                      {"results", results},             {"experiment", experiment},
                                      {"layout", layout}};

}  // namespace hetbench::fuzz
