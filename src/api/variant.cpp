#include "hetbench/variant.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench {

namespace fs = std::filesystem;

std::string format_params(const ParamValues& p) {
  std::string s;
  for (const auto& [k, v] : p) s += fmt::format("{}{}={}", s.empty() ? "" : ";", k, v);
  return s;
}

ParamValues params_from_json(const nlohmann::json& j, const std::string& where, const std::string& key) {
  if (!j.is_object()) throw Error(fmt::format("{}: key '{}': expected an object of NAME: integer", where, key));
  ParamValues p;
  for (auto it = j.begin(); it != j.end(); ++it) {
    // 1e308 or 2^64-1 would become some other integer on the way into a long long.
    if (!it.value().is_number_integer() ||
        (it.value().is_number_unsigned() && it.value().get<unsigned long long>() > INT64_MAX))
      throw Error(fmt::format("{}: key '{}.{}': expected an integer, not {}", where, key, it.key(), it.value().dump()));
    p[it.key()] = it.value().get<long long>();
  }
  return p;
}

const ParamDef* Variant::param(const std::string& n) const {
  for (const auto& p : params)
    if (p.name == n) return &p;
  return nullptr;
}

ParamValues Variant::defaults() const {
  ParamValues pv;
  for (const auto& p : params) pv[p.name] = p.def;
  return pv;
}

Vars device_vars(const DeviceInfo& d, Precision p) {
  return {{"cu", d.compute_units},
          {"max_wg", static_cast<double>(d.max_wg)},
          {"pref_wg", static_cast<double>(d.pref_wg_multiple)},
          {"local_mem", static_cast<double>(d.local_mem)},
          {"local_mem_launch", static_cast<double>(d.local_mem_launch)},
          {"constant_mem", static_cast<double>(d.constant_mem)},
          {"fp64", d.fp64 ? 1.0 : 0.0},
          {"elem_bytes", static_cast<double>(info(p).bytes)},
          {"is_gpu", d.type == "gpu" ? 1.0 : 0.0},
          {"peers", static_cast<double>(d.peers)},
          {"max_alloc", static_cast<double>(d.max_alloc)}};
}

Vars problem_vars(const DeviceInfo& d, const std::string& op, const Sizes& s, Precision p) {
  Vars vars = device_vars(d, p);
  // An optional choice's absent keys mean its first value (op.hpp): expressions see 0;
  // an optional dimension's absence means its absent_value.
  if (const Op* o = op_named(op))
    for (const auto& a : o->signature().axes) {
      if (a.kind == Axis::Kind::Choice)
        for (const auto& k : a.keys()) vars[k] = 0;
      else if (a.optional)
        vars[a.name] = static_cast<double>(a.absent_value);
    }
  for (const auto& [k, v] : s) vars[k] = static_cast<double>(v);
  return vars;
}

std::string Variant::unsupported_reason(const Device& dev, Precision p) const {
  const auto& di = dev.info();
  if (dev.kernel_language() != backend) return fmt::format("{} is a {} variant", id(), to_string(backend));
  if (std::find(precisions.begin(), precisions.end(), p) == precisions.end())
    return fmt::format("{} has no {} version", id(), hetbench::name(p));
  if (info(p).needs_fp64 && !di.fp64) return fmt::format("{} has no FP64 support", di.id);
  for (const auto& r : required_ext)
    if (!di.has_extension(r)) return fmt::format("{} lacks {}", di.id, r);
  return "";
}

std::string Variant::missing_axis(const Sizes& s) const {
  const Op* o = op_named(op);
  if (!o) return "";
  for (const auto& a : o->signature().axes) {
    if (!a.opt_in || std::find(axes.begin(), axes.end(), a.name) != axes.end()) continue;
    auto it = s.find(a.name);
    if (it != s.end() && it->second != a.absent_value)
      return fmt::format("{} does not implement @{} ({} = {}): {}", id(), a.name, a.name, it->second, a.doc);
  }
  return "";
}

std::string Variant::violated_constraint(const Device& dev, const Sizes& s, Precision p, const ParamValues& pv) const {
  if (unavailable)
    if (auto why = unavailable(dev); !why.empty()) return why;
  if (auto why = missing_axis(s); !why.empty()) return why;
  Vars vars = problem_vars(dev.info(), op, s, p);
  for (const auto& [k, v] : pv) vars[k] = static_cast<double>(v);
  for (const auto& c : constraints)
    if (c.eval(vars) == 0)
      return fmt::format("constraint '{}' fails for {}{} on {}", c.text(), id(),
                         pv.empty() ? "" : " with " + format_params(pv), dev.id());
  return "";
}

namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::shared_ptr<Variant>> variants;
  std::vector<std::string> extra_paths;
  bool loaded = false;
};

Registry& registry() {
  static Registry r;
  return r;
}

fs::path exe_dir() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : p.parent_path();
}

}  // namespace

std::vector<std::pair<std::string, std::string>>& missing_baselines() {
  static std::vector<std::pair<std::string, std::string>> m;
  return m;
}

std::string data_dir(const std::string& sub) {
  for (auto cand : {exe_dir() / ".." / sub, exe_dir() / ".." / "share" / "hetbench" / sub,
                    fs::path(HETBENCH_SOURCE_DIR) / sub}) {
    if (fs::is_directory(cand)) return fs::weakly_canonical(cand).string();
  }
  throw Error(fmt::format("cannot find hetbench's '{}' folder next to the program or in {}", sub, HETBENCH_SOURCE_DIR));
}

std::string kernel_dir() {
  if (const char* d = std::getenv("HETBENCH_KERNEL_DIR"); d && *d) return d;
  return data_dir("kernels");
}

void add_kernel_path(const std::string& path) {
  std::lock_guard lock(registry().mu);
  registry().extra_paths.push_back(path);
}

std::vector<std::string> kernel_paths() {
  std::lock_guard lock(registry().mu);
  return registry().extra_paths;
}

void register_variant(std::shared_ptr<Variant> v) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  for (const auto& o : r.variants)
    if (o->id() == v->id())
      throw Error(fmt::format("variant {} is defined twice: in {} and in {}", v->id(), o->origin, v->origin));
  r.variants.push_back(std::move(v));
}

const std::vector<std::shared_ptr<Variant>>& all_variants() {
  auto& r = registry();
  if (!r.loaded) {
    r.loaded = true;
    load_variant_metadata(kernel_dir());
    if (const char* env = std::getenv("HETBENCH_KERNELS"); env && *env) {
      std::string s(env);
      for (std::size_t b = 0; b <= s.size();) {
        auto e = s.find(':', b);
        if (e == std::string::npos) e = s.size();
        if (e > b) load_variant_metadata(s.substr(b, e - b));
        b = e + 1;
      }
    }
    for (const auto& p : std::vector<std::string>(r.extra_paths)) load_variant_metadata(p);
  }
  return r.variants;
}

std::vector<std::shared_ptr<Variant>> variants_for(const std::string& op) {
  std::vector<std::shared_ptr<Variant>> out;
  for (const auto& v : all_variants())
    if (v->op == op) out.push_back(v);
  return out;
}

}  // namespace hetbench
