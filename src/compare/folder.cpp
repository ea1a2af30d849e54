#include "compare/folder.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "engine/record/results.hpp"
#include "hetbench/error.hpp"
#include "hetbench/record.hpp"
#include "util/json_file.hpp"

namespace hetbench {

namespace fs = std::filesystem;

std::string RecordedExperiment::label() const {
  const auto name = dir.filename().string();
  return name.empty() ? dir.parent_path().filename().string() : name;
}

namespace {

[[noreturn]] void bad_line(const fs::path& file, std::size_t line, const std::string& what) {
  throw Error(fmt::format("{}:{}: {}", file.string(), line, what));
}

// The keys compare and replay rely on; a hand edit that breaks one is named.
void check_point(const nlohmann::json& r, const fs::path& file, std::size_t line) {
  if (!r.is_object()) bad_line(file, line, "expected a point record (a JSON object)");
  auto need = [&](const char* key, bool (nlohmann::json::*is)() const noexcept, const char* what) {
    if (!r.contains(key) || !(r[key].*is)())
      bad_line(file, line, fmt::format("key '{}': missing or not {}", key, what));
  };
  need("point", &nlohmann::json::is_number_integer, "an integer");
  for (const char* k : {"op", "variant", "variant_id", "device", "precision", "status"})
    need(k, &nlohmann::json::is_string, "a string");
  need("sizes", &nlohmann::json::is_object, "an object");
  need("params", &nlohmann::json::is_object, "an object");
  const std::string status = r["status"];
  if (!point_status_from(status))
    bad_line(file, line,
             fmt::format("key 'status': '{}' is not ok, failed, error, skipped, crashed, timeout or interrupted", status));
  if (!r.contains("timing")) {
    if (status == "ok") bad_line(file, line, "key 'timing': missing on a point of status ok");
    return;
  }
  const auto& t = r["timing"];
  if (!t.is_object()) bad_line(file, line, "key 'timing': not an object");
  if (t.contains("samples")) {
    const auto& s = t["samples"];
    if (!s.is_array()) bad_line(file, line, "key 'timing.samples': not an array");
    for (std::size_t i = 0; i < s.size(); ++i)
      if (!s[i].is_number() || !(s[i].get<double>() > 0) || !std::isfinite(s[i].get<double>()))
        bad_line(file, line, fmt::format("key 'timing.samples[{}]': {} is not a positive time", i, s[i].dump()));
    if (t.contains("reps") && (!t["reps"].is_number_integer() || t["reps"].get<std::size_t>() != s.size()))
      bad_line(file, line,
               fmt::format("key 'timing.samples': {} samples, but 'timing.reps' says {}", s.size(), t["reps"].dump()));
  } else if (!t.contains("seconds") || !t["seconds"].is_object() || !t["seconds"].contains("median")) {
    bad_line(file, line, "key 'timing': neither 'samples' nor 'seconds.median'");
  }
}

}  // namespace

RecordedExperiment read_experiment(const fs::path& dir) {
  RecordedExperiment e;
  e.dir = dir;
  const auto ej = dir / "experiment.json", rj = dir / "results.jsonl";
  if (!fs::is_directory(dir)) throw Error(fmt::format("'{}' is not a folder", dir.string()));
  if (!fs::is_regular_file(ej))
    throw Error(fmt::format("'{}' is not an experiment folder: it has no experiment.json", dir.string()));
  e.experiment = read_json_file(ej.string());
  if (!e.experiment.is_object()) throw Error(fmt::format("{}: expected a JSON object", ej.string()));
  if (!fs::is_regular_file(rj))
    throw Error(fmt::format("'{}' is not an experiment folder: it has no results.jsonl", dir.string()));
  const std::string text = read_text_file(rj.string());
  const bool complete = e.experiment.value("status", "") == "complete";
  std::size_t line = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string::npos;
    const std::string s = text.substr(start, last ? std::string::npos : end - start);
    start = last ? text.size() : end + 1;
    ++line;
    if (s.empty()) continue;
    nlohmann::json r;
    try {
      r = nlohmann::json::parse(s);
    } catch (const nlohmann::json::exception& err) {
      // A process killed mid-write leaves a torn last line without its newline.
      if (last && !complete) {
        fmt::print(stderr, "hetbench: {}:{}: a torn last line (the run did not complete) is skipped\n", rj.string(),
                   line);
        break;
      }
      bad_line(rj, line, fmt::format("invalid JSON{}: {}", last ? " (a truncated file?)" : "", json_error_text(err)));
    }
    check_point(r, rj, line);
    e.points.push_back(std::move(r));
  }
  check_point_numbers(e.points, e.experiment, rj.string());
  return e;
}

}  // namespace hetbench
