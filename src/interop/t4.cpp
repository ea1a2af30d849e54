// Experiment folder -> T4 documents (schema in tests/schemas/T4-results-1.1.0.json).
// Times are written in milliseconds, as Kernel Tuner writes them and as the methodology
// project's reader expects; rates keep their units in each measurement.
#include "interop/t4.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "engine/record/results.hpp"
#include "hetbench/record.hpp"
#include "hetbench/error.hpp"
#include "util/json_file.hpp"

namespace hetbench {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

class RecordReader {
 public:
  RecordReader(std::string file, std::size_t index) : file_(std::move(file)), index_(index) {}
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(fmt::format("{}: record {} (line {}): key '{}': {}", file_, index_, index_ + 1, key, what));
  }
  const json& get(const json& r, const std::string& key, json::value_t type) const {
    if (!r.contains(key)) fail(key, "missing");
    const json& v = r[key];
    const bool ok = type == json::value_t::number_float ? v.is_number() : v.type() == type;
    if (!ok) fail(key, fmt::format("expected {}, found {}", json(type).type_name(), v.type_name()));
    return v;
  }

 private:
  std::string file_;
  std::size_t index_;
};

double ms(double seconds) { return seconds * 1e3; }

// The raw timed repetitions, in seconds, where the record keeps them.
std::vector<double> raw_samples(const json& timing) {
  for (const json* s : {timing.contains("samples") ? &timing["samples"] : nullptr,
                        timing.contains("seconds") && timing["seconds"].is_object() && timing["seconds"].contains("samples")
                            ? &timing["seconds"]["samples"]
                            : nullptr})
    if (s && s->is_array()) {
      std::vector<double> out;
      for (const auto& x : *s)
        if (x.is_number()) out.push_back(x.get<double>());
      return out;
    }
  return {};
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '=' || c == '-' ? c : '_';
  return out;
}

std::string problem_text(const json& sizes) {
  std::string out;
  for (auto it = sizes.begin(); it != sizes.end(); ++it) {
    const std::string v = it->is_string() ? it->get<std::string>() : it->dump();
    out += (out.empty() ? "" : ",") + it.key() + "=" + (it.key() == "input" ? fs::path(v).filename().string() : v);
  }
  return out;
}

const json* find_device(const json& experiment, const std::string& id) {
  if (experiment.contains("devices") && experiment["devices"].is_array())
    for (const auto& d : experiment["devices"])
      if (d.is_object() && d.value("id", "") == id) return &d;
  return nullptr;
}

ojson measurement(const std::string& name, const json& value, const std::string& unit) {
  return ojson{{"name", name}, {"value", value}, {"unit", unit}};
}

// One results.jsonl record as a T4 result.
ojson t4_result(const json& r, const RecordReader& rr) {
  ojson out;
  if (r.contains("time") && r["time"].is_string()) out["timestamp"] = r["time"];
  out["configuration"] = ojson(rr.get(r, "params", json::value_t::object));
  out["objectives"] = ojson::array({"time"});
  ojson times = ojson::object();
  ojson ms_list = ojson::array();
  ojson measurements = ojson::array();
  if (r.contains("timing")) {
    const json& t = rr.get(r, "timing", json::value_t::object);
    const json& s = rr.get(t, "seconds", json::value_t::object);
    for (double x : raw_samples(t)) ms_list.push_back(ms(x));
    const double n = s.value("n", 0.0), mean = s.value("mean", 0.0);
    times["benchmark"] = ms(n * mean);  // the timed repetitions together
    // The rest of the point's time, as Kernel Tuner splits it (recorded since the record
    // has point_s): preparing (compiling or the kernel cache), the validated runs, and
    // what is left besides the timed loop (warm-up, rounds, observers).
    if (t.contains("point_s") && t["point_s"].is_number()) {
      const double build = t.value("build_s", 0.0), check = t.value("validate_s", 0.0);
      times["compilation"] = ms(build);
      times["validation"] = ms(check);
      times["framework"] = ms(std::max(0.0, t["point_s"].get<double>() - build - check - t.value("wall_s", 0.0)));
    }
    if (!s.contains("median") || !s["median"].is_number()) rr.fail("timing.seconds.median", "expected a number");
    measurements.push_back(measurement("time", ms(s["median"].get<double>()), "ms"));
    for (const char* k : {"min", "max", "mean", "stddev", "ci95_lo", "ci95_hi"})
      if (s.contains(k) && s[k].is_number()) measurements.push_back(measurement(fmt::format("time_{}", k), ms(s[k].get<double>()), "ms"));
    measurements.push_back(measurement("repetitions", n, ""));
  }
  // The tuner's search before this evaluation; a plain run searches nothing.
  const bool tuned = r.contains("tune") && r["tune"].is_object();
  times["search_algorithm"] = ms(tuned ? r["tune"].value("search_s", 0.0) : 0.0);
  times["runtimes"] = ms_list;
  out["times"] = times;
  const std::string inv = t4_invalidity(r);
  out["invalidity"] = inv;
  out["correctness"] = inv == "correct" ? 1 : 0;
  if (r.contains("gflops") && r["gflops"].is_number()) measurements.push_back(measurement("gflops", r["gflops"], "GFLOP/s"));
  if (r.contains("gbs") && r["gbs"].is_number()) measurements.push_back(measurement("gbs", r["gbs"], "GB/s"));
  if (r.contains("energy") && r["energy"].is_object()) {
    const json& e = r["energy"];
    const std::pair<const char*, std::pair<const char*, const char*>> energy[] = {
        {"energy_per_rep_j", {"energy", "J"}},
        {"avg_power_w", {"power", "W"}},
        {"gflop_per_j", {"gflop_per_j", "GFLOP/J"}},
        {"gb_per_j", {"gb_per_j", "GB/J"}}};
    for (const auto& [key, name_unit] : energy)
      if (e.contains(key) && e[key].is_number()) measurements.push_back(measurement(name_unit.first, e[key], name_unit.second));
  }
  out["measurements"] = measurements;
  // What T4 has no field for, kept under one key of our own (T4 allows extra keys).
  ojson extra{{"point", r.value("point", -1)}, {"status", r["status"]}};
  for (const char* k : {"error_stage", "message", "validation", "seed", "pct_ceiling", "pct_bw"})
    if (r.contains(k)) extra[k] = ojson(r[k]);
  out["hetbench"] = extra;
  return out;
}

ojson t4_metadata(const json& experiment, const json& first, const fs::path& dir) {
  ojson m;
  const std::string backend = first.value("backend", "");
  if (backend == "opencl") m["compute_api"] = "OpenCL";
  else if (backend == "cuda") m["compute_api"] = "CUDA";
  const json* dev = find_device(experiment, first.value("device", ""));
  // The OpenCL platform's name where the device info has it (PoCL, NVIDIA CUDA), else the vendor.
  if (dev && dev->contains("extra") && (*dev)["extra"].is_object() && (*dev)["extra"].contains("platform") &&
      (*dev)["extra"]["platform"].is_string())
    m["platform"] = (*dev)["extra"]["platform"];
  else if (dev && dev->contains("vendor") && (*dev)["vendor"].is_string())
    m["platform"] = (*dev)["vendor"];
  m["device"] = first.value("device_name", first.value("device", ""));
  m["autotuner"] = "hetbench";
  m["autotuner_version"] = fmt::format("{} ({})", experiment.value("hetbench_version", "unknown"),
                                       experiment.value("git_commit", "unknown"));
  m["timestamp"] = experiment.value("start_time", first.value("time", ""));
  m["timeunit"] = "milliseconds";
  ojson h{{"experiment", fs::absolute(dir).lexically_normal().string()},
          {"op", first["op"]},
          {"variant", first["variant"]},
          {"variant_id", first["variant_id"]},
          {"kind", first.value("kind", "")},
          {"backend", backend},
          {"device_id", first["device"]},
          {"precision", first["precision"]},
          {"problem", ojson(first["sizes"])}};
  if (first.contains("features")) h["features"] = ojson(first["features"]);
  if (dev) h["device_info"] = ojson(*dev);
  for (const char* k : {"command_line", "seed", "host", "compiler", "end_time", "status"})
    if (experiment.contains(k)) h[k] = ojson(experiment[k]);
  // A tuning's search: its strategy, seed and budget, and the configurations it started from.
  if (first.contains("tune") && first["tune"].is_object()) {
    ojson search;
    for (const char* k : {"strategy", "seed", "budget", "starts"})
      if (first["tune"].contains(k)) search[k] = ojson(first["tune"][k]);
    h["search"] = search;
  }
  m["hetbench"] = h;
  return m;
}

}  // namespace

std::string t4_invalidity(const json& r) {
  const std::string status = r.value("status", "");
  if (status == "ok") return "correct";
  if (status == "failed") return "correctness";
  if (status == "skipped") return "constraints";
  if (status == "crashed") return "runtime";
  if (status == "timeout") return "timeout";
  if (status == "interrupted") return "runtime";  // T4 has no word for a run cut short by a signal
  // Records written before error_stage existed count as runtime errors.
  if (status == "error") return r.value("error_stage", "") == "build" ? "compile" : "runtime";
  throw Error(fmt::format("unknown status '{}'", status));
}

std::vector<T4Document> experiment_to_t4(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw Error(fmt::format("'{}' is not a folder", dir.string()));
  const fs::path exp_file = dir / "experiment.json";
  if (!fs::exists(exp_file))
    throw Error(fmt::format("'{}' is not an experiment folder: it has no experiment.json", dir.string()));
  const json experiment = read_json_file(exp_file.string());
  if (!experiment.is_object()) throw Error(fmt::format("{}: expected a JSON object", exp_file.string()));
  const auto records = read_results(dir);
  const std::string file = (dir / "results.jsonl").string();
  if (records.empty()) throw Error(fmt::format("{}: no points recorded", file));

  std::vector<T4Document> docs;
  std::map<std::string, std::size_t> by_problem;
  std::set<std::string> stems;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const json& r = records[i];
    RecordReader rr(file, i);
    if (!r.is_object()) rr.fail("", "expected a JSON object");
    using T = json::value_t;
    for (const char* k : {"op", "variant", "variant_id", "device", "precision"}) rr.get(r, k, T::string);
    const json& sizes = rr.get(r, "sizes", T::object);
    const std::string status = rr.get(r, "status", T::string).get<std::string>();
    if (!point_status_from(status)) rr.fail("status", fmt::format("unknown status '{}'", status));
    const std::string key = fmt::format("{}|{}|{}|{}|{}", r["op"].get<std::string>(), r["variant_id"].get<std::string>(),
                                        r["device"].get<std::string>(), r["precision"].get<std::string>(), sizes.dump());
    auto [it, fresh] = by_problem.emplace(key, docs.size());
    if (fresh) {
      std::string stem = sanitize(fmt::format("{}-{}-{}-{}", r["variant_id"].get<std::string>(),
                                              r["device"].get<std::string>(), r["precision"].get<std::string>(),
                                              problem_text(sizes)));
      for (int n = 2; !stems.insert(stem).second; ++n) stem += fmt::format("-{}", n);
      ojson doc{{"schema_version", t4_schema_version}, {"metadata", t4_metadata(experiment, r, dir)},
                {"results", ojson::array()}};
      docs.push_back({stem, std::move(doc)});
    }
    docs[it->second].doc["results"].push_back(t4_result(r, rr));
  }
  // After each record's own checks, which name the key a hand edit broke.
  check_point_numbers(records, experiment, file);
  return docs;
}

}  // namespace hetbench
