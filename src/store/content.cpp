// What the store keeps of an experiment: read strictly from its folder, described (the
// system it ran on) and hashed. The hash covers the canonical JSON text (nlohmann's
// dump: sorted keys, shortest round-trip numbers) of experiment.json and of every record,
// so the same experiment gives the same hash whether it comes from a folder, a bundle
// or a folder written back by `store get`.
#include <openssl/evp.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <set>

#include <fmt/format.h>

#include "engine/record/results.hpp"
#include "hetbench/error.hpp"
#include "store/content.hpp"
#include "util/json_file.hpp"

namespace hetbench::store {

namespace fs = std::filesystem;

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) throw Error("SHA-256 is not available (OpenSSL)");
}
Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }
void Sha256::add(std::string_view s) { EVP_DigestUpdate(ctx_, s.data(), s.size()); }
std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx_, md, &n);
  std::string out;
  for (unsigned i = 0; i < n; ++i) out += fmt::format("{:02x}", md[i]);
  return out;
}

std::string content_hash(const ExperimentContent& e) {
  Sha256 h;
  h.add(e.experiment.dump());
  h.add("\n");
  for (const auto& p : e.points) {
    h.add(p.record);
    h.add("\n");
  }
  return h.hex();
}

nlohmann::json system_description(const nlohmann::json& x) {
  auto str = [](const nlohmann::json& j, const char* k) {
    return j.is_object() && j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
  };
  const auto host = x.value("host", nlohmann::json::object());
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : x.value("devices", nlohmann::json::array())) {
    if (!d.is_object()) continue;
    nlohmann::json dev = {{"id", str(d, "id")}, {"name", str(d, "name")}, {"vendor", str(d, "vendor")},
                          {"driver", str(d, "driver")}, {"version", str(d, "version")}, {"type", str(d, "type")}};
    dev["backend"] = d.value("backend", nlohmann::json());
    dev["max_clock_mhz"] = d.value("max_clock_mhz", nlohmann::json());
    dev["compute_units"] = d.value("compute_units", nlohmann::json());
    devices.push_back(dev);
  }
  return {{"host", str(host, "hostname")},          {"os", str(host, "os")},
          {"compiler", str(x, "compiler")},          {"hetbench_version", str(x, "hetbench_version")},
          {"git_commit", str(x, "git_commit")},      {"devices", devices}};
}

namespace {

// "k=v;k=v" as results.csv writes an object.
std::string pairs(const nlohmann::json& j) {
  std::string s;
  if (!j.is_object()) return s;
  for (auto it = j.begin(); it != j.end(); ++it) s += fmt::format("{}{}={}", s.empty() ? "" : ";", it.key(), it->dump());
  return s;
}

std::optional<double> number(const nlohmann::json& j, const char* k) {
  if (!j.is_object() || !j.contains(k) || !j[k].is_number()) return std::nullopt;
  const double v = j[k].get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

PointRow point_row(const nlohmann::json& r, const std::string& where, std::string text) {
  if (!r.is_object()) throw Error(fmt::format("{}: a record must be a JSON object", where));
  auto need = [&](const char* k) -> std::string {
    if (!r.contains(k) || !r[k].is_string())
      throw Error(fmt::format("{}: key '{}' is missing or not a string (not a hetbench record)", where, k));
    return r[k].get<std::string>();
  };
  auto opt = [&](const char* k) -> std::string {
    if (!r.contains(k) || r[k].is_null()) return "";
    if (!r[k].is_string()) throw Error(fmt::format("{}: key '{}' must be a string", where, k));
    return r[k].get<std::string>();
  };
  PointRow p;
  if (!r.contains("point") || !r["point"].is_number_integer() || r["point"].get<long long>() < 0)
    throw Error(fmt::format("{}: key 'point' is missing or not a point index", where));
  p.point = r["point"].get<int>();
  p.op = need("op");
  p.variant_id = need("variant_id");
  p.device = need("device");
  p.status = need("status");
  p.variant = opt("variant");
  p.backend = opt("backend");
  p.device_name = opt("device_name");
  p.precision = opt("precision");
  p.time = opt("time");
  for (const char* k : {"sizes", "params"})
    if (r.contains(k) && !r[k].is_null() && !r[k].is_object())
      throw Error(fmt::format("{}: key '{}' must be an object", where, k));
  p.sizes = pairs(r.value("sizes", nlohmann::json()));
  p.params = pairs(r.value("params", nlohmann::json()));
  if (r.contains("timing") && r["timing"].is_object() && r["timing"].contains("seconds"))
    p.median_s = number(r["timing"]["seconds"], "median");
  p.gflops = number(r, "gflops");
  p.gbs = number(r, "gbs");
  p.record = text.empty() ? r.dump() : std::move(text);
  return p;
}

namespace {

const nlohmann::json& kernel_file_list(const nlohmann::json& experiment) {
  static const nlohmann::json none = nlohmann::json::object();
  if (!experiment.contains("kernels") || !experiment["kernels"].is_object()) return none;
  const auto& k = experiment["kernels"];
  return k.contains("files") && k["files"].is_object() ? k["files"] : none;
}

bool safe_kernel_name(const std::string& name) {
  const std::string prefix = "kernels/";
  if (name.rfind(prefix, 0) != 0) return false;
  const auto file = name.substr(prefix.size());
  return !file.empty() && file != "." && file != ".." && file.find('/') == std::string::npos &&
         file.find('\\') == std::string::npos;
}

}  // namespace

void check_kernel_files(const ExperimentContent& e, const std::string& where) {
  const auto& list = kernel_file_list(e.experiment);
  for (const auto& [name, f] : list.items()) {
    if (!safe_kernel_name(name))
      throw Error(fmt::format("{}: kernel file '{}': expected a name kernels/FILE", where, name));
    const std::string want = f.is_object() ? f.value("sha256", "") : "";
    auto it = e.files.find(name);
    if (it == e.files.end()) throw Error(fmt::format("{}: kernel file '{}' is missing", where, name));
    Sha256 h;
    h.add(it->second);
    if (const auto now = h.hex(); now != want)
      throw Error(fmt::format("{}: kernel file '{}' does not match its SHA-256: {} recorded, {} in hand", where, name,
                              want, now));
  }
  for (const auto& [name, content] : e.files)
    if (!list.contains(name)) throw Error(fmt::format("{}: kernel file '{}' is not one experiment.json names", where, name));
}

ExperimentContent read_experiment_folder(const fs::path& dir) {
  const auto exp_path = dir / "experiment.json", jsonl = dir / "results.jsonl";
  if (!fs::is_directory(dir)) throw Error(fmt::format("'{}' is not a folder", dir.string()));
  if (!fs::exists(exp_path))
    throw Error(fmt::format("'{}' is not an experiment folder: it has no experiment.json", dir.string()));
  ExperimentContent e;
  e.experiment = read_json_file(exp_path.string());
  if (!e.experiment.is_object() || !e.experiment.contains("hetbench_version"))
    throw Error(fmt::format("'{}' is not a hetbench experiment.json (no 'hetbench_version')", exp_path.string()));
  e.system = system_description(e.experiment);
  std::ifstream f(jsonl, std::ios::binary);
  if (!f) throw Error(fmt::format("cannot read '{}'", jsonl.string()));
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    if (line.empty()) continue;
    const auto where = fmt::format("'{}' line {}", jsonl.string(), n);
    nlohmann::json r;
    try {
      r = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& err) {
      if (f.eof())
        throw Error(fmt::format("{}: truncated record (the last line is cut short: a run killed mid-write?); "
                                "resume or finish the experiment first",
                                where));
      throw Error(fmt::format("{}: not JSON ({})", where, json_error_text(err)));
    }
    e.points.push_back(point_row(r, where));
  }
  std::vector<std::int64_t> numbers;
  for (const auto& p : e.points) numbers.push_back(p.point);
  check_point_numbers(numbers, e.experiment, jsonl.string());
  e.hash = content_hash(e);
  for (const auto& [name, f] : kernel_file_list(e.experiment).items()) {
    if (!safe_kernel_name(name)) continue;  // check_kernel_files names it
    std::ifstream k(dir / name, std::ios::binary);
    if (!k) continue;  // check_kernel_files names it
    std::stringstream text;
    text << k.rdbuf();
    e.files[name] = text.str();
  }
  check_kernel_files(e, dir.string());
  return e;
}

}  // namespace hetbench::store
