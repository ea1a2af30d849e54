#include "engine/record/results.hpp"

#include <set>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <thread>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "util/json_file.hpp"

namespace hetbench {

namespace fs = std::filesystem;

std::string now_iso8601() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string stamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

// HETBENCH_TEST_SLOW_WRITES=MS writes each piece in two halves with a pause of MS
// milliseconds between them, so that the kill tests land a SIGKILL inside a record.
int slow_writes_ms() {
  static const int ms = [] {
    const char* v = std::getenv("HETBENCH_TEST_SLOW_WRITES");
    return v ? std::atoi(v) : 0;
  }();
  return ms;
}

void write_all(std::FILE* f, const std::string& s, const fs::path& path) {
  std::size_t half = 0;
  if (slow_writes_ms() > 0 && s.size() > 1) {
    half = s.size() / 2;
    if (std::fwrite(s.data(), 1, half, f) != half || std::fflush(f) != 0)
      throw Error(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
    std::this_thread::sleep_for(std::chrono::milliseconds(slow_writes_ms()));
  }
  const std::size_t rest = s.size() - half;
  if (std::fwrite(s.data() + half, 1, rest, f) != rest || std::fflush(f) != 0 || fsync(fileno(f)) != 0)
    throw Error(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

ExperimentWriter::ExperimentWriter(const fs::path& root, const std::string& name, nlohmann::json experiment)
    : experiment_(std::move(experiment)) {
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec || !fs::is_directory(root))
    throw Error(fmt::format("cannot create output folder '{}': {}", root.string(),
                            ec ? ec.message() : "not a directory"));
  std::string base = stamp() + "-" + name;
  for (int i = 1;; ++i) {
    dir_ = root / (i == 1 ? base : fmt::format("{}-{}", base, i));
    if (fs::create_directory(dir_, ec)) break;
    if (ec) throw Error(fmt::format("cannot create output folder '{}': {}", dir_.string(), ec.message()));
    if (i > 1000) throw Error(fmt::format("cannot find a free folder name under '{}'", root.string()));
  }
  experiment_["directory"] = dir_.string();
  write_experiment();
  open_files("a");
}

ExperimentWriter::ExperimentWriter(Reopen, const fs::path& dir) : dir_(dir) {
  const auto exp_path = dir / "experiment.json", jsonl_path = dir / "results.jsonl";
  if (!fs::exists(exp_path))
    throw Error(fmt::format("'{}' is no experiment folder: it has no experiment.json", dir.string()));
  experiment_ = read_json_file(exp_path.string());
  if (!experiment_.is_object()) throw Error(fmt::format("'{}' is not a JSON object", exp_path.string()));
  // A record is written with its newline in one write, so text after the last newline
  // is a record cut short by a kill.
  std::error_code ec;
  if (fs::exists(jsonl_path)) {
    std::string text;
    {
      std::ifstream f(jsonl_path, std::ios::binary);
      text.assign(std::istreambuf_iterator<char>(f), {});
    }
    const auto keep = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    if (keep != text.size()) fs::resize_file(jsonl_path, keep, ec);
    if (ec) throw Error(fmt::format("cannot repair '{}': {}", jsonl_path.string(), ec.message()));
  } else {
    std::ofstream(jsonl_path).flush();
  }
  const auto records = read_results(dir);
  // The CSV is derived from the JSONL, so it is rebuilt rather than repaired.
  fs::remove(dir / "results.csv", ec);
  open_files("a");
  for (const auto& r : records) write_all(csv_, csv_row(r) + "\n", dir_ / "results.csv");
  experiment_["status"] = "running";
  experiment_.erase("unfinished");  // a sharded sweep's (docs/mpi.md): this session measures them
  experiment_.erase("end_time");
  // An experiment.json edited by hand may hold anything under "resumed": push_back on a
  // non-array would throw nlohmann's type_error.
  if (experiment_.contains("resumed") && !experiment_["resumed"].is_array())
    throw Error(fmt::format("'{}': key 'resumed' must be an array of times", exp_path.string()));
  experiment_["resumed"].push_back(now_iso8601());
  write_experiment();
}

void ExperimentWriter::open_files(const char* mode) {
  const bool new_csv = !fs::exists(dir_ / "results.csv");
  jsonl_ = std::fopen((dir_ / "results.jsonl").c_str(), mode);
  csv_ = std::fopen((dir_ / "results.csv").c_str(), mode);
  if (!jsonl_ || !csv_)
    throw Error(fmt::format("cannot write results in '{}': {}", dir_.string(), std::strerror(errno)));
  if (!new_csv) return;
  std::string header;
  for (const auto& c : csv_columns()) header += (header.empty() ? "" : ",") + c;
  write_all(csv_, header + "\n", dir_ / "results.csv");
}

ExperimentWriter::~ExperimentWriter() {
  if (jsonl_) std::fclose(jsonl_);
  if (csv_) std::fclose(csv_);
}

void ExperimentWriter::write_experiment() {
  // Synced before the rename, so that a power loss leaves the old file or the new one.
  auto tmp = dir_ / "experiment.json.tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw Error(fmt::format("cannot write '{}': {}", tmp.string(), std::strerror(errno)));
  try {
    write_all(f, experiment_.dump(2) + "\n", tmp);
  } catch (...) {
    std::fclose(f);
    throw;
  }
  std::fclose(f);
  std::error_code ec;
  fs::rename(tmp, dir_ / "experiment.json", ec);
  if (ec) throw Error(fmt::format("cannot write '{}': {}", (dir_ / "experiment.json").string(), ec.message()));
}

void ExperimentWriter::append(const nlohmann::json& record) {
  write_all(jsonl_, record.dump() + "\n", dir_ / "results.jsonl");
  write_all(csv_, csv_row(record) + "\n", dir_ / "results.csv");
}

void ExperimentWriter::replace_records(const std::vector<nlohmann::json>& records) {
  const auto jsonl = dir_ / "results.jsonl", tmp = dir_ / "results.jsonl.tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw Error(fmt::format("cannot write '{}': {}", tmp.string(), std::strerror(errno)));
  std::string text;
  for (const auto& r : records) text += r.dump() + "\n";
  try {
    write_all(f, text, tmp);
  } catch (...) {
    std::fclose(f);
    throw;
  }
  std::fclose(f);
  std::fclose(jsonl_);
  std::fclose(csv_);
  jsonl_ = csv_ = nullptr;
  std::error_code ec;
  fs::rename(tmp, jsonl, ec);
  if (ec) throw Error(fmt::format("cannot write '{}': {}", jsonl.string(), ec.message()));
  fs::remove(dir_ / "results.csv", ec);
  open_files("a");
  for (const auto& r : records) write_all(csv_, csv_row(r) + "\n", dir_ / "results.csv");
}

void ExperimentWriter::finish(const nlohmann::json& summary) {
  experiment_["end_time"] = now_iso8601();
  for (auto it = summary.begin(); it != summary.end(); ++it) experiment_[it.key()] = it.value();
  write_experiment();
}

const std::vector<std::string>& ExperimentWriter::csv_columns() {
  static const std::vector<std::string> cols{
      "point",  "op",     "variant", "backend", "device",   "device_name", "precision", "sizes",
      "params", "status", "reps",    "timed",   "median_s", "min_s",       "mean_s",    "stddev_s",
      "ci95_lo_s", "ci95_hi_s", "gflops", "gbs", "pct_ceiling", "max_err_over_bound", "message",
      "raw_gbs", "ns_per_load"};
  return cols;
}

std::string ExperimentWriter::csv_row(const nlohmann::json& r) {
  auto get = [&](const nlohmann::json& j, const char* k) -> std::string {
    if (!j.is_object() || !j.contains(k) || j[k].is_null()) return "";
    const auto& v = j[k];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object()) {
      std::string s;
      for (auto it = v.begin(); it != v.end(); ++it)
        s += fmt::format("{}{}={}", s.empty() ? "" : ";", it.key(), it.value().dump());
      return s;
    }
    return v.dump();
  };
  // Any JSON may stand on a line of results.jsonl: a part that is not an object is empty.
  auto part = [](const nlohmann::json& j, const char* k) {
    return j.is_object() && j.contains(k) && j[k].is_object() ? j[k] : nlohmann::json::object();
  };
  const nlohmann::json timing = part(r, "timing"), secs = part(timing, "seconds"), val = part(r, "validation");
  std::vector<std::string> f{get(r, "point"),     get(r, "op"),        get(r, "variant"),   get(r, "backend"),
                             get(r, "device"),    get(r, "device_name"), get(r, "precision"), get(r, "sizes"),
                             get(r, "params"),    get(r, "status"),    get(secs, "n"),      get(timing, "timed"),
                             get(secs, "median"), get(secs, "min"),    get(secs, "mean"),   get(secs, "stddev"),
                             get(secs, "ci95_lo"), get(secs, "ci95_hi"), get(r, "gflops"),  get(r, "gbs"),
                             get(r, "pct_ceiling"), get(val, "max_err_over_bound"), get(r, "message"),
                             get(r, "raw_gbs"),   get(r, "ns_per_load")};
  std::string row;
  for (std::size_t i = 0; i < f.size(); ++i) row += (i ? "," : "") + csv_escape(f[i]);
  return row;
}

std::vector<nlohmann::json> read_results(const fs::path& dir) {
  std::ifstream f(dir / "results.jsonl");
  if (!f) throw Error(fmt::format("cannot read '{}'", (dir / "results.jsonl").string()));
  return read_results(f, (dir / "results.jsonl").string());
}

std::vector<nlohmann::json> read_results(std::istream& f, const std::string& name) {
  std::vector<nlohmann::json> out;
  std::string line;
  for (std::size_t number = 1; std::getline(f, line); ++number) {
    if (line.empty()) continue;
    try {
      out.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e400
      if (f.peek() != EOF) throw Error(fmt::format("'{}' has a corrupt line {}: {}", name, number, json_error_text(e)));
      continue;
    }
    // Valid JSON that is no record (a hand edit): named here, once for every reader.
    if (!out.back().is_object()) throw Error(fmt::format("'{}' line {}: a record must be a JSON object", name, number));
  }
  return out;
}

void check_point_numbers(const std::vector<std::int64_t>& points, const nlohmann::json& experiment,
                         const std::string& file) {
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (!seen.insert(points[i]).second)
      throw Error(fmt::format("{}: point {} appears twice (record {}): the file was edited or joined", file, points[i],
                              i + 1));
  if (!experiment.is_object() || experiment.value("status", "") != "complete") return;
  if (!experiment.contains("points") || !experiment["points"].is_number_integer()) return;
  const auto n = experiment["points"].get<std::int64_t>();
  for (std::int64_t k = 0; k < n; ++k)
    if (!seen.count(k))
      throw Error(fmt::format("{}: point {} of the complete experiment's {} is missing: the file was truncated or edited",
                              file, k, n));
  if (static_cast<std::int64_t>(seen.size()) != n)
    throw Error(fmt::format("{}: holds {} points, but the complete experiment has {}", file, seen.size(), n));
}

void check_point_numbers(const std::vector<nlohmann::json>& records, const nlohmann::json& experiment,
                         const std::string& file) {
  std::vector<std::int64_t> numbers;
  for (const auto& r : records) {
    // A record without an integer point is the reader's own check to name, with the key.
    if (!r.is_object() || !r.contains("point") || !r["point"].is_number_integer()) return;
    numbers.push_back(r["point"].get<std::int64_t>());
  }
  check_point_numbers(numbers, experiment, file);
}

}  // namespace hetbench
