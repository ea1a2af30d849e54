// An experiment folder as T4 documents: the results schema (version 1.1.0) of the
// autotuning methodology project of the Auto-Tuning Association, which Kernel Tuner,
// KTT and BAT write and read. docs/interop.md says what maps to what.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench {

inline constexpr const char* t4_schema_version = "1.1.0";

// One T4 document per tuning problem: a variant on a device in one precision for one
// problem (sizes, matrix), its points in the order they were measured. T4 readers take a
// document as one search space, so problems are never mixed in one.
struct T4Document {
  std::string stem;  // a file name for it: <op>-<variant>-<device>-<precision>-<problem>
  nlohmann::ordered_json doc;
};

// Reads experiment.json and results.jsonl of `dir`; throws Error naming the file (and the
// point) when the folder is not an experiment or a record is malformed.
std::vector<T4Document> experiment_to_t4(const std::filesystem::path& dir);

// T4's invalidity for one results.jsonl record: ok -> correct, failed -> correctness,
// error -> compile (error_stage "build") or runtime, skipped -> constraints.
std::string t4_invalidity(const nlohmann::json& record);

}  // namespace hetbench
