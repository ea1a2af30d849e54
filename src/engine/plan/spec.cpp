// Sweep spec files (docs/spec-format.md).
#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <cstdint>
#include <iterator>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "engine/plan/spec.hpp"
#include "engine/plan/plan.hpp"
#include "util/cache.hpp"
#include "util/json_file.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& key, const std::string& what) {
  throw Error(fmt::format("{}: key '{}': {}", where, key, what));
}

std::string scalar_text(const nlohmann::json& v, const std::string& where, const std::string& key) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  bad(where, key, "expected a string or an integer");
}

std::string list_text(const nlohmann::json& v, const std::string& where, const std::string& key) {
  if (!v.is_array()) return scalar_text(v, where, key);
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + scalar_text(v[i], where, fmt::format("{}[{}]", key, i));
  return s;
}

int int_value(const nlohmann::json& v, const std::string& where, const std::string& key) {
  if (!v.is_number_integer()) bad(where, key, "expected an integer");
  // get<int> would wrap 4294967297 to 1.
  if (v.is_number_unsigned() ? v.get<std::uint64_t>() > INT_MAX : (v.get<std::int64_t>() < INT_MIN || v.get<std::int64_t>() > INT_MAX))
    bad(where, key, fmt::format("{} is out of the range of an int", v.dump()));
  return v.get<int>();
}

double number_value(const nlohmann::json& v, const std::string& where, const std::string& key) {
  if (!v.is_number()) bad(where, key, "expected a number");
  return v.get<double>();
}

bool bool_value(const nlohmann::json& v, const std::string& where, const std::string& key) {
  if (!v.is_boolean()) bad(where, key, "expected true or false");
  return v.get<bool>();
}

// The measurement settings a run and a spec file's top level may give.
const char* const kMeasureKeys[] = {"reps",    "warmup",      "max_noise",         "min_samples", "min_time",
                                    "timeout", "max_samples", "include_transfers", "cache",       "energy",
                                    "rounds",  "executions"};

}  // namespace

const std::set<std::string>& run_spec_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> k{"op", "variants", "variant", "devices", "device", "precisions", "sizes", "size",
                            "params", "matrix", "matrices"};
    k.insert(std::begin(kMeasureKeys), std::end(kMeasureKeys));
    return k;
  }();
  return keys;
}

void check_measurement(const RunSpec& r, const std::string& where) {
  auto fail = [&](const char* option, const char* key, const std::string& value, const char* why) {
    if (where.empty()) throw Error(fmt::format("{} {} is impossible: {}", option, value, why));
    bad(where, key, fmt::format("{} is impossible: {}", value, why));
  };
  if (r.reps && *r.reps < 1) fail("--reps", "reps", std::to_string(*r.reps), "at least 1 repetition is needed");
  // !(x > 0) also refuses NaN.
  if (!(r.max_noise > 0) || !std::isfinite(r.max_noise))
    fail("--max-noise", "max_noise", fmt::format("{}", r.max_noise), "expected a percentage above 0, e.g. 0.5");
  if (r.min_samples < 1) fail("--min-samples", "min_samples", std::to_string(r.min_samples), "expected 1 or more");
  if (!(r.min_time >= 0) || !std::isfinite(r.min_time))
    fail("--min-time", "min_time", fmt::format("{}", r.min_time), "expected seconds, 0 or more");
  if (!(r.timeout > 0) || !std::isfinite(r.timeout))
    fail("--timeout", "timeout", fmt::format("{}", r.timeout), "expected seconds above 0");
  if (r.max_samples < r.min_samples)
    fail("--max-samples", "max_samples", std::to_string(r.max_samples),
         fmt::format("below the minimum sample count {}", r.min_samples).c_str());
  if (r.rounds < 1) fail("--rounds", "rounds", std::to_string(r.rounds), "expected 1 or more");
  if (r.executions < 1 || r.executions > 100)
    fail("--executions", "executions", std::to_string(r.executions), "expected 1 to 100 processes per point");
  if (r.cache != "hot" && r.cache != "cold") fail("--cache", "cache", "'" + r.cache + "'", "expected hot or cold");
}

nlohmann::json to_json(const RunSpec& r) {
  std::vector<std::string> precs;
  for (auto p : r.precisions) precs.push_back(name(p));
  nlohmann::json j = {{"op", r.op},       {"variants", r.variants}, {"devices", r.devices}, {"precisions", precs},
                      {"sizes", r.sizes}, {"params", r.params},     {"warmup", r.warmup},
                      {"include_transfers", r.include_transfers}};
  // Without reps the run is adaptive: the key stays out, so the object reads back the same.
  if (r.reps) j["reps"] = *r.reps;
  j["max_noise"] = r.max_noise;
  j["min_time"] = r.min_time;
  j["timeout"] = r.timeout;
  j["min_samples"] = r.min_samples;
  j["max_samples"] = r.max_samples;
  j["rounds"] = r.rounds;
  // Only when asked: runs of one process read back, and key, as they always did.
  if (r.executions != 1) j["executions"] = r.executions;
  j["cache"] = r.cache;
  j["energy"] = r.energy;
  if (!r.inputs.empty()) j["matrices"] = r.inputs;
  return j;
}

RunSpec run_spec_from_json(const nlohmann::json& j, const std::string& where) {
  const auto& allowed = run_spec_keys();
  if (!j.is_object()) throw Error(fmt::format("{}: a run must be a JSON object", where));
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!allowed.count(it.key())) bad(where, it.key(), "unknown key");
  RunSpec r;
  if (!j.contains("op") || !j["op"].is_string()) bad(where, "op", "missing or not a string");
  r.op = j["op"];
  for (const char* k : {"variants", "variant"})
    if (j.contains(k)) {
      r.variants.clear();
      auto text = list_text(j[k], where, k);
      std::stringstream ss(text);
      for (std::string t; std::getline(ss, t, ',');) r.variants.push_back(t);
    }
  for (const char* k : {"devices", "device"})
    if (j.contains(k)) r.devices = list_text(j[k], where, k);
  if (j.contains("precisions")) {
    try {
      r.precisions = parse_precisions(list_text(j["precisions"], where, "precisions"));
    } catch (const Error& e) {
      bad(where, "precisions", e.what());
    }
  } else {
    r.precisions = default_precisions(r.op);
  }
  // A key and its singular spelling, each a token or an array of tokens.
  auto tokens = [&](std::initializer_list<const char*> keys, std::vector<std::string>& out) {
    for (const char* k : keys)
      if (j.contains(k)) {
        if (j[k].is_array())
          for (std::size_t i = 0; i < j[k].size(); ++i)
            out.push_back(scalar_text(j[k][i], where, fmt::format("{}[{}]", k, i)));
        else
          out.push_back(scalar_text(j[k], where, k));
      }
  };
  tokens({"sizes", "size"}, r.sizes);
  tokens({"matrices", "matrix"}, r.inputs);
  if (j.contains("params")) {
    if (!j["params"].is_object()) bad(where, "params", "expected an object of NAME: values");
    for (auto it = j["params"].begin(); it != j["params"].end(); ++it)
      r.params[it.key()] = list_text(it.value(), where, "params." + it.key());
  }
  if (j.contains("reps")) r.reps = int_value(j["reps"], where, "reps");
  if (j.contains("warmup")) r.warmup = int_value(j["warmup"], where, "warmup");
  using D = std::pair<const char*, double*>;
  for (auto [k, v] : {D{"max_noise", &r.max_noise}, D{"min_time", &r.min_time}, D{"timeout", &r.timeout}})
    if (j.contains(k)) *v = number_value(j[k], where, k);
  using I = std::pair<const char*, int*>;
  for (auto [k, v] : {I{"min_samples", &r.min_samples}, I{"max_samples", &r.max_samples}, I{"rounds", &r.rounds},
                      I{"executions", &r.executions}})
    if (j.contains(k)) *v = int_value(j[k], where, k);
  using B = std::pair<const char*, bool*>;
  for (auto [k, v] : {B{"include_transfers", &r.include_transfers}, B{"energy", &r.energy}})
    if (j.contains(k)) *v = bool_value(j[k], where, k);
  if (j.contains("cache")) {
    if (!j["cache"].is_string()) bad(where, "cache", "expected \"hot\" or \"cold\"");
    r.cache = j["cache"];
  }
  check_measurement(r, where);
  return r;
}

Experiment experiment_from_file(const std::string& path) {
  Experiment e = experiment_from_json(read_json_file(path), path);
  // GEMMbench entries named by a spec are found beside the spec, wherever it is run from.
  if (e.spec.contains("gemmbench")) {
    const std::filesystem::path entries = e.spec["gemmbench"].get<std::string>();
    if (entries.is_relative())
      e.spec["gemmbench"] = (std::filesystem::absolute(path).parent_path() / entries).lexically_normal().string();
  }
  const std::string text = read_text_file(path);
  e.spec_file = {{"path", std::filesystem::absolute(path).string()}, {"fnv1a64", hash_hex(text)}, {"text", text}};
  return e;
}

// The experiment's own keys of a spec, beside its runs (or beside the one run it is):
// "targets" are `hetbench check`'s (engine/record/query.hpp), "filter" narrows the plan,
// "gemmbench" names GEMMbench entries (a file or folder, relative to the spec) that every
// gemm run measures instead of its variants, as `run --kernel` does.
constexpr const char* kExperimentKeys[] = {"name",    "description", "seed",     "runs",
                                           "best_only", "targets",   "filter", "gemmbench"};

Experiment experiment_from_json(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) throw Error(fmt::format("{}: expected a JSON object", path));
  Experiment e;
  e.spec = j;
  if (j.contains("name") && !j["name"].is_string()) bad(path, "name", "expected a string");
  e.name = j.value("name", std::string());
  if (e.name.empty()) {
    auto base = path.substr(path.find_last_of('/') + 1);
    e.name = base.substr(0, base.rfind('.'));
  }
  nlohmann::json defaults = nlohmann::json::object();
  for (const char* k : {"devices", "precisions", "variants"})
    if (j.contains(k)) defaults[k] = j[k];
  for (const char* k : kMeasureKeys)
    if (j.contains(k)) defaults[k] = j[k];
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned()) bad(path, "seed", "expected a non-negative integer");
    e.seed = j["seed"];
  }
  if (j.contains("best_only")) e.best_only = bool_value(j["best_only"], path, "best_only");
  if (j.contains("gemmbench") && (!j["gemmbench"].is_string() || j["gemmbench"].get<std::string>().empty()))
    bad(path, "gemmbench", "expected the path of a GEMMbench entry or of a folder of entries");
  if (j.contains("filter")) {
    if (!j["filter"].is_string()) bad(path, "filter", "expected a regular expression (a string)");
    check_filter(j["filter"].get<std::string>(), fmt::format("{}: key 'filter'", path));
  }
  if (j.contains("runs")) {
    // Beside runs, the top level holds defaults for them and the experiment's own keys; a
    // misspelt one ("repz") would otherwise leave every run on its default, silently.
    for (auto it = j.begin(); it != j.end(); ++it) {
      const auto& k = it.key();
      auto in = [&](const auto& keys) { return std::find(std::begin(keys), std::end(keys), k) != std::end(keys); };
      const bool own = in(kExperimentKeys) || k == "devices" || k == "precisions" || k == "variants" || in(kMeasureKeys);
      if (!own) bad(path, k, "unknown key");
    }
    if (!j["runs"].is_array() || j["runs"].empty()) bad(path, "runs", "expected a non-empty array of runs");
    for (std::size_t i = 0; i < j["runs"].size(); ++i) {
      auto run = defaults;
      if (!j["runs"][i].is_object()) bad(path, fmt::format("runs[{}]", i), "expected an object");
      for (auto it = j["runs"][i].begin(); it != j["runs"][i].end(); ++it) run[it.key()] = it.value();
      e.runs.push_back(run_spec_from_json(run, fmt::format("{}: runs[{}]", path, i)));
    }
  } else {
    auto run = j;
    for (const char* k : kExperimentKeys) run.erase(k);
    e.runs.push_back(run_spec_from_json(run, path));
  }
  return e;
}

}  // namespace hetbench
