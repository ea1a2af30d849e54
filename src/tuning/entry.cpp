// Entries of the tuning database as values: device identity, variant hash, storage key,
// JSON form (export/import) and the nearest-entry rule every lookup follows.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hetbench/error.hpp"
#include "kernel/kernel_variant.hpp"
#include "tuning/db.hpp"
#include "util/cache.hpp"

namespace hetbench::tuning {

namespace fs = std::filesystem;

DeviceIdentity DeviceIdentity::of(const DeviceInfo& d) {
  DeviceIdentity id;
  id.backend = d.backend;
  id.name = d.name;
  id.vendor = d.vendor;
  id.driver = d.driver;
  // NVIDIA devices (CUDA, and OpenCL with cl_nv_device_attribute_query) name their compute
  // capability, which is the architecture; elsewhere the vendor, type and language
  // version are the nearest thing to it.
  if (d.extra.contains("compute_capability") && d.extra["compute_capability"].is_string()) {
    id.version = d.extra["compute_capability"].get<std::string>();
    std::string digits;
    for (char c : id.version)
      if (c != '.') digits += c;
    id.arch = "sm_" + digits;
  } else {
    id.version = d.extra.contains("opencl_c_version") && d.extra["opencl_c_version"].is_string()
                     ? d.extra["opencl_c_version"].get<std::string>()
                     : d.version;
    id.arch = fmt::format("{} {} {}", d.vendor, d.type, id.version);
  }
  return id;
}

nlohmann::json to_json(const DeviceIdentity& d) {
  return {{"backend", to_string(d.backend)}, {"name", d.name},       {"vendor", d.vendor},
          {"driver", d.driver},              {"version", d.version}, {"arch", d.arch}};
}

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& key, const std::string& what) {
  throw Error(fmt::format("{}: key '{}': {}", where, key, what));
}
std::string str(const nlohmann::json& j, const std::string& key, const std::string& where, bool required = true) {
  if (!j.contains(key)) {
    if (required) bad(where, key, "missing");
    return "";
  }
  if (!j[key].is_string()) bad(where, key, "expected a string");
  return j[key].get<std::string>();
}
double num(const nlohmann::json& j, const std::string& key, const std::string& where, double def) {
  if (!j.contains(key)) return def;
  if (!j[key].is_number()) bad(where, key, "expected a number");
  return j[key].get<double>();
}

}  // namespace

DeviceIdentity device_identity_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw Error(fmt::format("{}: key 'device': expected an object", where));
  DeviceIdentity d;
  const auto b = parse_backend(str(j, "backend", where + " device"));
  if (!b) bad(where, "device.backend", "expected host, opencl or cuda");
  d.backend = *b;
  d.name = str(j, "name", where + " device");
  d.vendor = str(j, "vendor", where + " device", false);
  d.driver = str(j, "driver", where + " device", false);
  d.version = str(j, "version", where + " device", false);
  d.arch = str(j, "arch", where + " device", false);
  return d;
}

std::string variant_hash(const Variant& v) {
  std::ostringstream text;
  if (const auto* k = dynamic_cast<const KernelVariant*>(&v)) {
    text << k->source_text << '\n';
    // The metadata file itself where there is one (foreign entries are built in code:
    // their parameters and constraints below stand for it), without what cannot change
    // what a set of parameters measures: the description and each parameter's default
    // and doc. Tuned entries outlive a new default (say, the best tile of a new device
    // made the default) and an edited sentence; any other edit makes them stale.
    if (std::error_code ec; fs::is_regular_file(v.origin, ec)) {
      std::ifstream f(v.origin, std::ios::binary);
      std::ostringstream bytes;
      bytes << f.rdbuf();
      auto j = nlohmann::ordered_json::parse(bytes.str(), nullptr, false);
      if (j.is_object()) {
        j.erase("description");
        if (auto it = j.find("params"); it != j.end() && it->is_object())
          for (auto& [name, p] : it->items())
            if (p.is_object()) {
              p.erase("default");
              p.erase("doc");
            }
        text << j.dump() << '\n';
      } else {
        text << bytes.str() << '\n';
      }
    }
    for (const auto& p : v.params) {
      text << p.name << ':';
      for (auto x : p.values) text << x << ',';
      text << '\n';
    }
    for (const auto& c : v.constraints) text << c.text() << '\n';
  } else {
    text << v.id() << '\n' << HETBENCH_VERSION;
  }
  return hash_hex(text.str());
}

std::string storage_key(const Op& op, const Sizes& s) {
  std::string key;
  for (const auto& a : op.signature().axes)
    if (a.kind == Axis::Kind::Choice) key += fmt::format("{}{}={}", key.empty() ? "" : ";", a.name, a.value(s));
  return key;
}

nlohmann::json to_json(const TuningEntry& e) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, x] : e.params) params[k] = x;
  return {{"id", e.id},
          {"device", to_json(e.device)},
          {"variant", e.variant_id},
          {"variant_hash", e.variant_hash},
          {"precision", name(e.precision)},
          {"storage", e.storage},
          {"op", e.problem.op},
          {"class", e.problem.label},
          {"features", e.problem.features},
          {"params", params},
          {"layout", e.layout ? to_json(*e.layout) : nlohmann::json()},
          {"rate", e.rate},
          {"rate_lo", e.rate_lo},
          {"rate_hi", e.rate_hi},
          {"unit", e.unit},
          {"experiment", e.experiment},
          {"point", e.point},
          {"strategy", e.strategy},
          {"evaluations", e.evaluations},
          {"timestamp", e.timestamp}};
}

TuningEntry entry_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw Error(fmt::format("{}: expected an object", where));
  TuningEntry e;
  if (!j.contains("device")) bad(where, "device", "missing");
  e.device = device_identity_from_json(j["device"], where);
  e.variant_id = str(j, "variant", where);
  e.variant_hash = str(j, "variant_hash", where);
  try {
    e.precision = parse_precision(str(j, "precision", where));
  } catch (const Error& err) {
    bad(where, "precision", err.what());
  }
  e.storage = str(j, "storage", where, false);
  const std::string op = str(j, "op", where);
  if (!j.contains("features")) bad(where, "features", "missing");
  try {
    e.problem = classify_features(op, j["features"]);
  } catch (const Error& err) {
    bad(where, "features", err.what());
  }
  e.params = params_from_json(j.contains("params") ? j["params"] : nlohmann::json(), where, "params");
  if (j.contains("layout") && !j["layout"].is_null()) e.layout = layout_ref_from_json(j["layout"], where);
  if (!j.contains("rate")) bad(where, "rate", "missing");
  e.rate = num(j, "rate", where, 0);
  e.rate_lo = num(j, "rate_lo", where, e.rate);
  e.rate_hi = num(j, "rate_hi", where, e.rate);
  e.unit = str(j, "unit", where);
  e.experiment = str(j, "experiment", where, false);
  e.point = static_cast<int>(num(j, "point", where, -1));
  e.strategy = str(j, "strategy", where, false);
  e.evaluations = static_cast<int>(num(j, "evaluations", where, 0));
  e.timestamp = str(j, "timestamp", where, false);
  return e;
}

std::string to_string(Fallback f) {
  switch (f) {
    case Fallback::SameDevice: return "same device";
    case Fallback::SameArch: return "same architecture";
    case Fallback::SameVendor: return "same vendor";
  }
  return "?";
}

std::vector<LookupHit> ranked(const std::vector<TuningEntry>& entries, const LookupQuery& q) {
  std::vector<LookupHit> hits;
  for (const auto& e : entries) {
    bool current = false;  // a variant of the query, unchanged since the entry was tuned
    for (const auto& v : q.variants) current |= v.id == e.variant_id && v.hash == e.variant_hash;
    if (!current || e.precision != q.precision || e.storage != q.storage || e.device.backend != q.device.backend)
      continue;
    Fallback level;
    if (e.device == q.device) level = Fallback::SameDevice;
    else if (!q.device.arch.empty() && e.device.arch == q.device.arch) level = Fallback::SameArch;
    else if (!q.device.vendor.empty() && e.device.vendor == q.device.vendor) level = Fallback::SameVendor;
    else continue;
    hits.push_back(LookupHit{e, distance(e.problem, q.problem), level});
  }
  // The closest fallback level first, then the nearest class, then the faster entry;
  // stable, so that of entries equal in all three the first stored comes first.
  std::stable_sort(hits.begin(), hits.end(), [](const LookupHit& a, const LookupHit& b) {
    if (a.level != b.level) return a.level < b.level;
    if (a.distance != b.distance) return a.distance < b.distance;
    return a.entry.rate > b.entry.rate;
  });
  return hits;
}

std::optional<LookupHit> nearest(const std::vector<TuningEntry>& entries, const LookupQuery& q) {
  for (auto& hit : ranked(entries, q))
    if (hit.distance <= q.problem.reach) return std::move(hit);
  return std::nullopt;
}

std::string default_db_path() {
  if (const char* p = std::getenv("HETBENCH_DB"); p && *p) return p;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return (fs::path(x) / "hetbench" / "tuning.db").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".local" / "share" / "hetbench" / "tuning.db").string();
}

std::string resolve_db_path(const std::string& option) {
  const std::string p = option.empty() ? default_db_path() : option;
  return p == "none" ? "" : p;
}

}  // namespace hetbench::tuning
