// The experiment directory: experiment.json (provenance), results.jsonl (one record per
// point, appended and fsync'ed as each point finishes) and results.csv (the same points
// as rows). Documented in docs/results-format.md.
#pragma once

#include <cstdio>
#include <filesystem>
#include <istream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench {

class ExperimentWriter {
 public:
  // Creates <root>/<timestamp>-<name>/ (never reusing an existing folder); throws Error
  // when it cannot be created or written.
  ExperimentWriter(const std::filesystem::path& root, const std::string& name, nlohmann::json experiment);
  // Reopens an existing experiment folder for appending (tune --resume, sweep
  // --resume): a truncated last line of results.jsonl (a kill mid-write) is cut off,
  // results.csv is rewritten from results.jsonl (it may lag a row behind or end in half a
  // row), and experiment.json is read back with status "running" and this resume's time
  // added to "resumed". Throws Error naming the file when the folder is no experiment.
  struct Reopen {};
  ExperimentWriter(Reopen, const std::filesystem::path& dir);
  ~ExperimentWriter();
  ExperimentWriter(const ExperimentWriter&) = delete;
  ExperimentWriter& operator=(const ExperimentWriter&) = delete;

  void append(const nlohmann::json& record);
  // Replaces results.jsonl by `records` (written beside it, synced, then renamed: a kill
  // leaves the old file or the new one) and rebuilds results.csv: `sweep --resume
  // --retry-errors` drops the records it measures again.
  void replace_records(const std::vector<nlohmann::json>& records);
  // Rewrites experiment.json (atomically) with the end time and summary merged in.
  void finish(const nlohmann::json& summary);
  const std::filesystem::path& dir() const { return dir_; }
  const nlohmann::json& experiment() const { return experiment_; }

  static const std::vector<std::string>& csv_columns();
  static std::string csv_row(const nlohmann::json& record);

 private:
  std::filesystem::path dir_;
  nlohmann::json experiment_;
  std::FILE* jsonl_ = nullptr;
  std::FILE* csv_ = nullptr;
  void write_experiment();
  void open_files(const char* mode);
};

std::string now_iso8601();
// Reads results.jsonl, skipping a truncated last line (a run killed mid-write).
std::vector<nlohmann::json> read_results(const std::filesystem::path& dir);
// The same from a stream of results.jsonl text; `name` names it in messages.
std::vector<nlohmann::json> read_results(std::istream& in, const std::string& name);
// The point numbers of an experiment's records (`point` of each, in file order): each
// appears once, and a complete experiment (experiment.json's status) holds every point
// from 0 to its `points` - 1. Every reader that makes something of a finished experiment
// (compare, replay, store add, export t4, report) asks this; throws Error naming `file`.
void check_point_numbers(const std::vector<std::int64_t>& points, const nlohmann::json& experiment,
                         const std::string& file);
// The same over records as read_results returns them; where one has no integer `point`
// nothing is checked here (the reader's own record checks name that record).
void check_point_numbers(const std::vector<nlohmann::json>& records, const nlohmann::json& experiment,
                         const std::string& file);

}  // namespace hetbench
