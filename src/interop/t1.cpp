// KernelVariant <-> T1. The standard fields carry what T1 has words for (parameters,
// conditions, the first launch's kernel and sizes, the arguments); everything else a
// hetbench variant needs (op, precisions, lets, scratch, further launches) travels in
// one "hetbench" object, which the schema allows, so that a round trip keeps the space.
#include "interop/t1.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "interop/python_expr.hpp"
#include "interop/t1_foreign.hpp"
#include "interop/t1_reader.hpp"
#include "kernel/kernel_prelude.hpp"
#include "util/json_file.hpp"

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

namespace {

const char* kBlockNames[] = {"block_size_x", "block_size_y", "block_size_z"};

// The tuning parameters an expression depends on, through the lets it names.
std::set<std::string> params_of(const Expr& e, const KernelVariant& v) {
  std::set<std::string> out;
  std::function<void(const Expr&)> walk = [&](const Expr& x) {
    for (const auto& n : x.names()) {
      if (v.param(n)) out.insert(n);
      for (const auto& [name, let] : v.lets)
        if (name == n) walk(let);
    }
  };
  walk(e);
  return out;
}

// Every value an expression takes over the product of its parameters' domains (each
// configuration the launch could see, constraints aside: a superset is harmless where
// the values feed a condition). Configurations where it cannot be evaluated are skipped.
std::set<long long> values_over(const Expr& e, const KernelVariant& v, const Vars& bound) {
  const auto ps = params_of(e, v);
  std::vector<const ParamDef*> defs;
  double combos = 1;
  for (const auto& n : ps) {
    defs.push_back(v.param(n));
    combos *= static_cast<double>(defs.back()->values.size());
  }
  if (combos > 1e6)
    throw Error(fmt::format("{}: '{}' ranges over {:.3g} configurations, too many to list its values", v.id(),
                            e.text(), combos));
  std::set<long long> out;
  std::vector<std::size_t> at(defs.size(), 0);
  for (;;) {
    Vars vars = bound;
    for (std::size_t i = 0; i < defs.size(); ++i) vars[defs[i]->name] = static_cast<double>(defs[i]->values[at[i]]);
    for (const auto& [name, let] : v.lets) {  // those this expression needs evaluate; others may not
      try {
        vars[name] = static_cast<double>(eval_int(let, vars));
      } catch (const Error&) {
      }
    }
    try {
      out.insert(eval_int(e, vars));
    } catch (const Error&) {
    }
    std::size_t i = 0;
    while (i < defs.size() && ++at[i] == defs[i]->values.size()) at[i++] = 0;
    if (i == defs.size()) break;
  }
  return out;
}

// C preprocessor text of a define that depends on parameters (Kernel Tuner #defines
// them before the source): integer operators only, bound names as numbers. Throws Error
// for what C's preprocessor would compute differently (real division, functions).
std::string to_c(const Expr::Node& n, const Expr& e, const Vars& bound) {
  using K = Expr::Node::Kind;
  auto kid = [&](std::size_t i) { return to_c(*n.kids[i], e, bound); };
  switch (n.kind) {
    case K::Num:
      if (n.value != std::floor(n.value)) break;
      return std::to_string(static_cast<long long>(n.value));
    case K::Var:
      if (auto it = bound.find(n.name); it != bound.end()) return std::to_string(static_cast<long long>(it->second));
      return n.name;
    case K::Unary: return fmt::format("({}{})", n.name == "-" ? "-" : "!", kid(0));
    case K::Ternary: return fmt::format("({} ? {} : {})", kid(0), kid(1), kid(2));
    case K::Binary:
      if (n.name == "/" || n.name == "^") break;
      return fmt::format("({} {} {})", kid(0), n.name, kid(1));
    case K::Call:
      if (n.name == "div") return fmt::format("({} / {})", kid(0), kid(1));
      if (n.name == "min" || n.name == "max")
        return fmt::format("({0} {1} {2} ? {0} : {2})", kid(0), n.name == "min" ? "<" : ">", kid(1));
      break;
  }
  throw Error(fmt::format("'{}': '{}' has no C preprocessor equivalent", e.text(), n.name));
}

std::string int_list(const std::set<long long>& values) {
  std::string s;
  for (long long x : values) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return "[" + s + "]";
}

ojson condition(const std::set<std::string>& params, const std::string& expression) {
  ojson used = ojson::array();
  for (const auto& n : params) used.push_back(n);
  return ojson{{"Parameters", used}, {"Expression", expression}};
}

}  // namespace

T1Runnable variant_to_runnable_t1(const KernelVariant& v, const T1Problem& p, const std::string& kernel_file) {
  auto refuse = [&](const std::string& why) {
    return Error(fmt::format("{} ({}): cannot be written as a T1 problem Kernel Tuner runs: {}", v.id(), v.origin, why));
  };
  if (std::find(v.precisions.begin(), v.precisions.end(), p.prec) == v.precisions.end())
    throw refuse(fmt::format("it has no {} version", name(p.prec)));
  if (!v.setup.empty()) throw refuse("it runs a set-up launch before timing (Kernel Tuner times one kernel)");
  const Op& op = find_op(v.op);
  const std::unique_ptr<Problem> prob = op.make_problem(p.sizes, p.prec, p.seed);

  // What is fixed for this problem on this device; lets without parameters fold too.
  Vars bound = problem_vars(p.device, v.op, prob->sizes, p.prec);
  for (const auto& s : prob->scalars)
    if (s.is_int) bound[s.name] = s.value;
  for (const auto& [name, let] : v.lets)
    if (params_of(let, v).empty()) bound[name] = static_cast<double>(eval_int(let, bound));
  const PyBinding bind{&bound, &v.lets};
  auto py = [&](const Expr& e) { return to_python(e, bind); };

  ojson params = ojson::array();
  for (const auto& d : v.params) {
    std::set<long long> values(d.values.begin(), d.values.end());
    ojson tp{{"Name", d.name}, {"Type", "int"}, {"Values", int_list(values)}, {"Default", d.default_for(p.prec)}};
    if (!d.doc.empty()) tp["Description"] = d.doc;
    params.push_back(tp);
  }
  ojson conditions = ojson::array();
  for (const auto& c : v.constraints) {
    const auto ps = params_of(c, v);
    if (!ps.empty()) {
      conditions.push_back(condition(ps, py(c)));
    } else if (eval_int(c, bound) == 0) {
      throw refuse(fmt::format("its constraint '{}' fails for every configuration at this problem on {}", c.text(),
                               p.device.name));
    }
  }

  // One launch an execution: further launches that only some configurations need become
  // a condition that leaves those configurations out.
  const LaunchSpec& first = v.launches.front();
  for (std::size_t i = 1; i < v.launches.size(); ++i) {
    const LaunchSpec& l = v.launches[i];
    const auto ps = l.when ? params_of(*l.when, v) : std::set<std::string>{};
    if (l.when && !ps.empty()) {
      conditions.push_back(condition(ps, fmt::format("({}) == 0", py(*l.when))));
      fmt::print(stderr, "hetbench: {}: configurations where '{}' (they also launch {}) are left out: Kernel Tuner times one kernel\n",
                 v.id(), l.when->text(), l.kernel);
    } else if (!l.when || eval_int(*l.when, bound) != 0) {
      throw refuse(fmt::format("an execution is {} launches ({} then {}); Kernel Tuner's T1 times one kernel, so a "
                               "file of the first alone would time part of the operation",
                               v.launches.size(), first.kernel, l.kernel));
    }
  }
  if (first.local_bytes) throw refuse("its local memory is sized at launch, which T1 cannot pass to the kernel");
  if (first.local.empty()) throw refuse(fmt::format("kernel {} has no local size", first.kernel));

  // The work-group size, bound to Kernel Tuner's thread-block parameters.
  ojson global = ojson::object(), local = ojson::object(), problem_size = ojson::array();
  ojson kernel{{"Language", v.backend == BackendKind::Cuda ? "CUDA" : "OpenCL"},
               {"KernelName", first.kernel},
               {"KernelFile", kernel_file},
               {"GlobalSizeType", "OpenCL"}};
  for (std::size_t d = 0; d < first.local.size() && d < 3; ++d) {
    const Expr& l = first.local[d];
    const auto ps = params_of(l, v);
    std::set<long long> values = values_over(l, v, bound);
    ojson bp{{"Name", kBlockNames[d]}, {"Type", "int"}, {"Values", int_list(values)},
             {"Description", fmt::format("the work-group size along {}: {}", axes[d], l.text())}};
    params.push_back(bp);
    auto cps = ps;
    cps.insert(kBlockNames[d]);
    conditions.push_back(condition(cps, fmt::format("{} == {}", kBlockNames[d], py(l))));
    const std::string g = d < first.global.size() ? py(first.global[d]) : "1";
    global[axes[d]] = g;
    local[axes[d]] = kBlockNames[d];
    problem_size.push_back(g);
    kernel[fmt::format("GridDiv{}", axes[d])] = ojson::array({kBlockNames[d]});
  }
  kernel["GlobalSize"] = global;
  kernel["LocalSize"] = local;
  kernel["ProblemSize"] = problem_size;
  kernel["Device"] = ojson{{"Name", p.device.name}};

  // Arguments, with the sizes and fills Kernel Tuner allocates them by.
  const bool wide = info(p.prec).needs_fp64;
  const std::string real = wide ? "double" : "float";
  ojson args = ojson::array();
  for (const auto& a : first.args) {
    ojson arg{{"Name", a.name}};
    const ArrayOperand* arr = nullptr;
    for (const auto& x : prob->arrays)
      if (x.name == a.name) arr = &x;
    const ScratchSpec* scr = nullptr;
    for (const auto& s : v.scratch)
      if (s.name == a.name) scr = &s;
    if (arr) {
      if (arr->is_int && arr->access != Access::Out)
        throw refuse(fmt::format("argument '{}' holds indices, which T1's fills (constant, random) cannot make", a.name));
      arg["Type"] = arr->is_int ? "int32" : real;
      arg["MemoryType"] = "Vector";
      arg["AccessType"] = arr->access == Access::In ? "ReadOnly" : arr->access == Access::Out ? "WriteOnly" : "ReadWrite";
      arg["Size"] = arr->count;
      arg["FillType"] = arr->access == Access::Out ? "Constant" : "Random";
      if (arr->access == Access::Out) arg["FillValue"] = 0;
    } else if (scr) {
      const auto counts = values_over(scr->count, v, bound);
      arg["Type"] = scr->is_int ? "int32" : real;
      arg["MemoryType"] = "Vector";
      arg["AccessType"] = "ReadWrite";
      arg["Size"] = std::max(1LL, counts.empty() ? 1LL : *counts.rbegin());
      arg["FillType"] = "Constant";
      arg["FillValue"] = 0;
    } else if (const ScalarOperand* s = prob->scalar(a.name); s && !s->is_int) {
      arg["Type"] = real;
      arg["MemoryType"] = "Scalar";
      arg["FillValue"] = s->value;
    } else if (auto it = bound.find(a.name); it != bound.end()) {
      arg["Type"] = a.type == "long" ? "int64" : a.type == "ulong" ? "uint64" : "int32";
      arg["MemoryType"] = "Scalar";
      arg["FillValue"] = static_cast<long long>(it->second);
    } else {
      throw refuse(fmt::format("argument '{}' changes with the parameters; T1 arguments are fixed values", a.name));
    }
    args.push_back(arg);
  }
  kernel["Arguments"] = args;

  // The source as hetbench compiles it: the prelude (kept out when hetbench, which has
  // its own, builds the file) and this problem's defines; Kernel Tuner adds the parameters.
  std::string source = "// " + v.id() + " exported by hetbench for " + name(p.prec) + " at the problem in the T1 file\n";
  source += "#ifndef HB_KERNEL\n" + kernel_prelude(to_string(v.backend), p.prec) + "#endif\n";
  for (const auto& [dname, e] : v.defines) {
    std::string value;
    if (params_of(e, v).empty()) {
      value = std::to_string(eval_int(e, bound));
    } else {
      for (const auto& [lname, let] : v.lets)
        if (e.names().count(lname) && !bound.count(lname))
          throw refuse(fmt::format("its define {} = '{}' uses '{}', which changes with the parameters", dname,
                                   e.text(), lname));
      try {
        value = to_c(*e.root(), e, bound);
      } catch (const Error& err) {
        throw refuse(fmt::format("its define {}: {}", dname, err.what()));
      }
    }
    source += fmt::format("#ifndef {0}\n#define {0} {1}\n#endif\n", dname, value);
  }
  source += v.source_text;

  ojson doc{{"General", {{"FormatVersion", 1}, {"BenchmarkName", v.id()}, {"OutputFormat", "JSON"}}},
            {"ConfigurationSpace", {{"TuningParameters", params}, {"Conditions", conditions}}},
            {"KernelSpecification", kernel},
            {"Search", {{"Name", p.strategy}}}};
  if (p.budget > 0) doc["Budget"] = ojson::array({ojson{{"Type", "ConfigurationCount"}, {"BudgetValue", p.budget}}});
  ojson sizes = ojson::object();
  for (const auto& [k, x] : p.sizes) sizes[k] = x;
  doc["hetbench"] = ojson{{"id", v.id()}, {"op", v.op}, {"precision", name(p.prec)}, {"sizes", sizes},
                          {"device", p.device.name}};
  return T1Runnable{doc, source};
}

T1Import t1_to_metadata(const ojson& t1, const fs::path& t1_file, const std::string& rename,
                        const std::string& op_name) {
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
  // Without hetbench's block the kernel's op is unknown: the import declares one.
  const bool declared = !ext.contains("op");
  if (!declared && !op_name.empty())
    r.fail("hetbench.op", fmt::format("the file names its op ('{}'): --op is for T1 files without one", ext["op"].dump()));
  meta["op"] = declared ? t1_declared_op_name(t1, op_name, r) : r.str(ext["op"], "hetbench.op");
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
  if (!declared && !ext.contains("precisions")) r.fail("hetbench.precisions", "missing: the precisions the kernel supports");
  if (!declared) meta["precisions"] = ext["precisions"];
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
  T1Import out{ojson(), src, {}, {}};
  if (declared) {
    t1_foreign_to_metadata(meta, t1, r, out.notes);
    out.metadata = meta;
    out.source_text = t1_foreign_source(read_text_file(src.string()), lang == "CUDA", src.filename().string());
    return out;
  }
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
  out.metadata = meta;
  return out;
}

}  // namespace hetbench
