// Sweep spec files (docs/spec-format.md).
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "engine/spec.hpp"
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
  return v.get<int>();
}

}  // namespace

const std::set<std::string>& run_spec_keys() {
  static const std::set<std::string> keys{"op",    "variants", "variant", "devices",          "device", "precisions",
                                          "sizes", "size",     "params",  "include_transfers", "reps",   "warmup",
                                          "matrix", "matrices"};
  return keys;
}

nlohmann::json to_json(const RunSpec& r) {
  std::vector<std::string> precs;
  for (auto p : r.precisions) precs.push_back(name(p));
  nlohmann::json j = {{"op", r.op},       {"variants", r.variants}, {"devices", r.devices}, {"precisions", precs},
                      {"sizes", r.sizes}, {"params", r.params},     {"reps", r.reps},       {"warmup", r.warmup},
                      {"include_transfers", r.include_transfers}};
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
  if (j.contains("include_transfers")) {
    if (!j["include_transfers"].is_boolean()) bad(where, "include_transfers", "expected true or false");
    r.include_transfers = j["include_transfers"];
  }
  return r;
}

Experiment experiment_from_file(const std::string& path) {
  const nlohmann::json j = read_json_file(path);
  if (!j.is_object()) throw Error(fmt::format("{}: expected a JSON object", path));
  Experiment e;
  e.spec = j;
  e.name = j.value("name", std::string());
  if (e.name.empty()) {
    auto base = path.substr(path.find_last_of('/') + 1);
    e.name = base.substr(0, base.rfind('.'));
  }
  nlohmann::json defaults = nlohmann::json::object();
  for (const char* k : {"reps", "warmup", "devices", "precisions", "include_transfers", "variants"})
    if (j.contains(k)) defaults[k] = j[k];
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned()) bad(path, "seed", "expected a non-negative integer");
    e.seed = j["seed"];
  }
  if (j.contains("best_only")) e.best_only = j["best_only"].get<bool>();
  if (j.contains("runs")) {
    if (!j["runs"].is_array() || j["runs"].empty()) bad(path, "runs", "expected a non-empty array of runs");
    for (std::size_t i = 0; i < j["runs"].size(); ++i) {
      auto run = defaults;
      if (!j["runs"][i].is_object()) bad(path, fmt::format("runs[{}]", i), "expected an object");
      for (auto it = j["runs"][i].begin(); it != j["runs"][i].end(); ++it) run[it.key()] = it.value();
      e.runs.push_back(run_spec_from_json(run, fmt::format("{}: runs[{}]", path, i)));
    }
  } else {
    auto run = j;
    for (const char* k : {"name", "description", "seed", "runs", "best_only"}) run.erase(k);
    e.runs.push_back(run_spec_from_json(run, path));
  }
  return e;
}

}  // namespace hetbench
