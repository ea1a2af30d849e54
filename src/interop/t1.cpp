// KernelVariant <-> T1. The standard fields carry what T1 has words for (parameters,
// conditions, the first launch's kernel and sizes, the arguments); everything else a
// hetbench variant needs (op, precisions, lets, scratch, further launches) travels in
// one "hetbench" object, which the schema allows, so that a round trip keeps the space.
#include "interop/t1.hpp"

#include <set>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "interop/python_expr.hpp"

namespace hetbench {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

const char* axes[] = {"X", "Y", "Z"};

ojson sizes_to_t1(const std::vector<Expr>& dims, const std::function<std::string(const Expr&)>& py) {
  ojson out = ojson::object();
  for (std::size_t d = 0; d < dims.size(); ++d) out[axes[d]] = py(dims[d]);
  return out;
}

std::string arg_type(const KernelVariant& v, const Op& op, const ArgSpec& a) {
  const bool wide = info(v.precisions.front()).needs_fp64;
  const std::string real = wide ? "double" : "float";
  if (const OperandSpec* o = op.signature().operand(a.name)) return o->elem == Elem::Int ? "int32" : real;
  for (const auto& s : v.scratch)
    if (s.name == a.name) return s.is_int ? "int32" : real;
  if (a.type == "int") return "int32";
  if (a.type == "long") return "int64";
  if (a.type == "ulong") return "uint64";
  return "uint32";
}

ojson t1_argument(const KernelVariant& v, const Op& op, const ArgSpec& a) {
  ojson arg{{"Name", a.name}, {"Type", arg_type(v, op, a)}};
  bool vector = false;
  for (const auto& s : v.scratch) vector = vector || s.name == a.name;
  if (const OperandSpec* o = op.signature().operand(a.name)) {
    vector = o->array;
    if (vector) arg["AccessType"] = o->access == Access::In ? "ReadOnly" : o->access == Access::Out ? "WriteOnly" : "ReadWrite";
  }
  arg["MemoryType"] = vector ? "Vector" : "Scalar";
  return arg;
}

ojson launch_json(const LaunchSpec& l) {
  ojson args = ojson::array();
  for (const auto& a : l.args) args.push_back(a.type.empty() ? a.name : a.name + ":" + a.type);
  ojson out{{"kernel", l.kernel}, {"args", args}};
  auto dims = [](const std::vector<Expr>& d) {
    ojson a = ojson::array();
    for (const auto& e : d) a.push_back(e.text());
    return a;
  };
  out["global"] = dims(l.global);
  if (!l.local.empty()) out["local"] = dims(l.local);
  if (l.local_bytes) out["local_bytes"] = l.local_bytes->text();
  if (l.when) out["when"] = l.when->text();
  return out;
}

class T1Reader {
 public:
  explicit T1Reader(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(fmt::format("{}: key '{}': {}", file_, key, what));
  }
  const ojson& at(const ojson& j, const std::string& key, const std::string& path) const {
    if (!j.is_object() || !j.contains(key)) fail(path, "missing");
    return j[key];
  }
  std::string str(const ojson& j, const std::string& path) const {
    if (!j.is_string()) fail(path, "expected a string");
    return j.get<std::string>();
  }
  std::string expr(const ojson& j, const std::string& path) const {
    if (j.is_number_integer()) return std::to_string(j.get<long long>());
    try {
      return from_python(str(j, path));
    } catch (const Error& e) {
      fail(path, e.what());
    }
  }

 private:
  std::string file_;
};

}  // namespace

ojson variant_to_t1(const KernelVariant& v, const T1Source& src) {
  const Op& op = find_op(v.op);
  auto py = [&](const Expr& e) {
    try {
      return to_python(e);
    } catch (const Error& err) {
      throw Error(fmt::format("{} ({}): {}", v.id(), v.origin, err.what()));
    }
  };
  std::set<std::string> tunable;
  ojson params = ojson::array();
  for (const auto& p : v.params) {
    std::string values;
    for (long long x : p.values) values += (values.empty() ? "" : ", ") + std::to_string(x);
    ojson tp{{"Name", p.name}, {"Type", "int"}, {"Values", "[" + values + "]"}, {"Default", p.def}};
    if (!p.doc.empty()) tp["Description"] = p.doc;
    params.push_back(tp);
    tunable.insert(p.name);
  }
  ojson conditions = ojson::array();
  for (const auto& c : v.constraints) {
    ojson used = ojson::array();
    for (const auto& n : c.names())
      if (tunable.count(n)) used.push_back(n);
    conditions.push_back(ojson{{"Parameters", used}, {"Expression", py(c)}});
  }
  if (v.launches.empty()) throw Error(fmt::format("{} ({}): has no launches", v.id(), v.origin));
  const LaunchSpec& first = v.launches.front();
  if (first.local.empty())
    throw Error(fmt::format("{} ({}): kernel {} has no local size, which T1 requires", v.id(), v.origin, first.kernel));
  ojson kernel{{"Language", v.backend == BackendKind::Cuda ? "CUDA" : "OpenCL"},
               {"KernelName", first.kernel},
               {"KernelFile", src.kernel_file},
               // hetbench's global sizes count work-items on both APIs.
               {"GlobalSizeType", "OpenCL"},
               {"GlobalSize", sizes_to_t1(first.global, py)},
               {"LocalSize", sizes_to_t1(first.local, py)}};
  ojson args = ojson::array();
  for (const auto& a : first.args) args.push_back(t1_argument(v, op, a));
  kernel["Arguments"] = args;

  ojson precisions = ojson::array();
  for (auto p : v.precisions) precisions.push_back(name(p));
  ojson ext{{"id", v.id()}, {"name", v.name}, {"op", v.op}, {"backend", to_string(v.backend)},
            {"description", v.description}, {"precisions", precisions}, {"requires", v.required_ext}};
  if (!src.includes.empty()) ext["includes"] = src.includes;
  auto named = [](const std::vector<std::pair<std::string, Expr>>& list) {
    ojson o = ojson::object();
    for (const auto& [n, e] : list) o[n] = e.text();
    return o;
  };
  ext["let"] = named(v.lets);
  ext["defines"] = named(v.defines);
  ojson scratch = ojson::object();
  for (const auto& s : v.scratch)
    scratch[s.name] = ojson{{"count", s.count.text()}, {"type", s.is_int ? "int" : "real"}, {"init", s.zero ? "zero" : "none"}};
  ext["scratch"] = scratch;
  ojson launches = ojson::array();
  for (const auto& l : v.launches) launches.push_back(launch_json(l));
  ext["launches"] = launches;
  if (!v.setup.empty()) {  // once per point, untimed (docs/metadata-format.md)
    ojson setup = ojson::array();
    for (const auto& l : v.setup) setup.push_back(launch_json(l));
    ext["setup"] = setup;
  }
  return ojson{{"General", {{"FormatVersion", 1}, {"BenchmarkName", v.id()}, {"OutputFormat", "JSON"}}},
               {"ConfigurationSpace", {{"TuningParameters", params}, {"Conditions", conditions}}},
               {"KernelSpecification", kernel},
               {"hetbench", ext}};
}

T1Import t1_to_metadata(const ojson& t1, const fs::path& t1_file, const std::string& rename) {
  const T1Reader r(t1_file.string());
  if (!t1.is_object()) r.fail("", "expected a JSON object");
  const ojson& space = r.at(t1, "ConfigurationSpace", "ConfigurationSpace");
  const ojson& kernel = r.at(t1, "KernelSpecification", "KernelSpecification");
  const ojson ext = t1.contains("hetbench") ? t1["hetbench"] : ojson::object();
  if (!ext.is_object()) r.fail("hetbench", "expected an object");
  ojson meta;
  const std::string kernel_name = r.str(r.at(kernel, "KernelName", "KernelSpecification.KernelName"),
                                        "KernelSpecification.KernelName");
  meta["name"] = !rename.empty() ? rename : ext.contains("name") ? r.str(ext["name"], "hetbench.name") : kernel_name;
  if (!ext.contains("op")) r.fail("hetbench.op", "missing: hetbench must know which op the kernel computes");
  meta["op"] = r.str(ext["op"], "hetbench.op");
  if (ext.contains("description")) meta["description"] = r.str(ext["description"], "hetbench.description");

  const std::string lang = r.str(r.at(kernel, "Language", "KernelSpecification.Language"), "KernelSpecification.Language");
  if (lang != "OpenCL" && lang != "CUDA") r.fail("KernelSpecification.Language", fmt::format("'{}': hetbench runs OpenCL and CUDA kernels", lang));
  const std::string file = r.str(r.at(kernel, "KernelFile", "KernelSpecification.KernelFile"), "KernelSpecification.KernelFile");
  fs::path src = t1_file.parent_path() / file;
  if (!fs::exists(src)) src = file;
  if (!fs::is_regular_file(src)) r.fail("KernelSpecification.KernelFile", fmt::format("file '{}' not found beside {} or as given", file, t1_file.string()));
  meta["source"] = src.filename().string();
  meta["backend"] = lang == "CUDA" ? "cuda" : "opencl";
  if (ext.contains("includes")) meta["includes"] = ext["includes"];
  if (!ext.contains("precisions")) r.fail("hetbench.precisions", "missing: the precisions the kernel supports");
  meta["precisions"] = ext["precisions"];
  if (ext.contains("requires")) meta["requires"] = ext["requires"];

  ojson params = ojson::object();
  const ojson& tps = r.at(space, "TuningParameters", "ConfigurationSpace.TuningParameters");
  if (!tps.is_array()) r.fail("ConfigurationSpace.TuningParameters", "expected an array");
  for (std::size_t i = 0; i < tps.size(); ++i) {
    const std::string key = fmt::format("ConfigurationSpace.TuningParameters[{}]", i);
    const std::string pname = r.str(r.at(tps[i], "Name", key + ".Name"), key + ".Name");
    const std::string type = r.str(r.at(tps[i], "Type", key + ".Type"), key + ".Type");
    if (type != "int" && type != "uint" && type != "bool")
      r.fail(key + ".Type", fmt::format("'{}': hetbench parameters are integers (int, uint or bool)", type));
    const ojson& vals = r.at(tps[i], "Values", key + ".Values");
    std::vector<long long> values;
    if (vals.is_array()) {
      for (const auto& x : vals) {
        if (!x.is_number_integer() && !x.is_boolean()) r.fail(key + ".Values", "expected integers");
        values.push_back(x.is_boolean() ? x.get<bool>() : x.get<long long>());
      }
    } else {
      try {
        values = python_int_list(r.str(vals, key + ".Values"));
      } catch (const Error& e) {
        r.fail(key + ".Values", e.what());
      }
    }
    if (values.empty()) r.fail(key + ".Values", "no values");
    ojson p{{"values", values}, {"default", values.front()}};
    if (tps[i].contains("Default")) {
      const ojson& d = tps[i]["Default"];
      if (!d.is_number_integer() && !d.is_boolean()) r.fail(key + ".Default", "expected an integer");
      p["default"] = d.is_boolean() ? static_cast<long long>(d.get<bool>()) : d.get<long long>();
    }
    if (tps[i].contains("Description")) p["doc"] = r.str(tps[i]["Description"], key + ".Description");
    params[pname] = p;
  }
  meta["params"] = params;
  ojson constraints = ojson::array();
  if (space.contains("Conditions")) {
    if (!space["Conditions"].is_array()) r.fail("ConfigurationSpace.Conditions", "expected an array");
    for (std::size_t i = 0; i < space["Conditions"].size(); ++i) {
      const std::string key = fmt::format("ConfigurationSpace.Conditions[{}].Expression", i);
      constraints.push_back(r.expr(r.at(space["Conditions"][i], "Expression", key), key));
    }
  }
  meta["constraints"] = constraints;
  for (const char* k : {"let", "defines", "scratch"})
    if (ext.contains(k)) meta[k] = ext[k];

  // The first launch comes from the standard fields (a user's edits there count); its
  // arguments, and any further launches, from the extension or from T1's Arguments.
  ojson launches = ext.contains("launches") ? ext["launches"] : ojson::array();
  if (!launches.is_array()) r.fail("hetbench.launches", "expected an array");
  ojson first = launches.empty() ? ojson::object() : launches[0];
  first["kernel"] = kernel_name;
  if (!first.contains("args")) {
    ojson args = ojson::array();
    if (kernel.contains("Arguments") && kernel["Arguments"].is_array())
      for (std::size_t i = 0; i < kernel["Arguments"].size(); ++i) {
        const std::string key = fmt::format("KernelSpecification.Arguments[{}].Name", i);
        args.push_back(r.str(r.at(kernel["Arguments"][i], "Name", key), key));
      }
    first["args"] = args;
  }
  const bool cuda_grid = kernel.value("GlobalSizeType", "OpenCL") == "CUDA";
  auto dims = [&](const char* field) {
    const std::string key = std::string("KernelSpecification.") + field;
    const ojson& g = r.at(kernel, field, key);
    ojson out = ojson::array();
    for (const char* a : axes)
      if (g.is_object() && g.contains(a)) out.push_back(r.expr(g[a], key + "." + a));
    if (out.empty()) r.fail(key + ".X", "missing");
    return out;
  };
  ojson global = dims("GlobalSize"), local = dims("LocalSize");
  if (global.size() != local.size()) r.fail("KernelSpecification.LocalSize", "must have as many dimensions as GlobalSize");
  // A CUDA-style GlobalSize counts blocks; hetbench counts work-items.
  if (cuda_grid)
    for (std::size_t d = 0; d < global.size(); ++d)
      global[d] = fmt::format("({}) * ({})", global[d].get<std::string>(), local[d].get<std::string>());
  first["global"] = global;
  first["local"] = local;
  if (launches.empty()) launches.push_back(first);
  else launches[0] = first;
  meta["launches"] = launches;
  if (ext.contains("setup")) meta["setup"] = ext["setup"];
  return T1Import{meta, src};
}

}  // namespace hetbench
