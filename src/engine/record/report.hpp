// Human-readable views of point records: progress lines and the final table.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench {

void print_progress(const nlohmann::json& rec);  // one line on stderr
// format: table (aligned text), md (markdown table), csv, json (one document: {"context",
// "points"}, as nvbench's and Google Benchmark's JSON are; `context` is report_context's,
// left out where null), jsonl (one record per line, as results.jsonl holds them).
void print_report(const std::vector<nlohmann::json>& recs, const std::string& format, bool best_only,
                  const nlohmann::json& context = nullptr);
// The same text.
std::string format_report(const std::vector<nlohmann::json>& recs, const std::string& format, bool best_only,
                          const nlohmann::json& context = nullptr);
// `--json FILE`, `--md FILE`, `--csv FILE` (format -> path), beside the experiment folder:
// checked before anything is measured (Error naming the option for a folder that does not
// exist), written at the end: md and csv as on stdout, json as one document {"context":
// build, command, host, devices, experiment folder; "points": every record}.
void check_report_files(const std::map<std::string, std::string>& files);
void write_report_files(const std::map<std::string, std::string>& files, const std::vector<nlohmann::json>& records,
                        bool best_only, const nlohmann::json& context);
// What a JSON report file says of its experiment, from experiment.json.
nlohmann::json report_context(const nlohmann::json& experiment, const std::string& dir);
std::string format_seconds(double s);

}  // namespace hetbench
