// Kernel metadata: a .cl or .cu source plus a JSON file with the op, precisions, tunable
// parameters, constraints, scratch buffers and launches, parsed into a KernelVariant.
// The format is documented in docs/metadata-format.md.
#include <algorithm>
#include <cmath>
#include <vector>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kernel/kernel_variant.hpp"
#include "util/json_file.hpp"
#include "util/ranges.hpp"
#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "ops/declared_op.hpp"

namespace hetbench {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

// The keys of a launch object besides "kernel"; a single-entry variant gives them at the
// top level, beside "entry".
const std::vector<std::string> kLaunchKeys{"args", "global", "local", "local_bytes", "when"};

// fs::exists throws filesystem_error on a name the system refuses (longer than NAME_MAX,
// say): for metadata such a file is simply not there, which fails with the key's name.
bool file_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

class Meta {
 public:
  Meta(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(fmt::format("{}: key '{}': {}", file_, key, what));
  }
  std::string str(const ojson& j, const std::string& key) const {
    if (!j.is_string()) fail(key, "expected a string");
    return j.get<std::string>();
  }
  Expr expr(const ojson& j, const std::string& key, const std::set<std::string>& known) const {
    std::string text;
    if (j.is_number_integer()) text = std::to_string(j.get<long long>());
    else text = str(j, key);
    Expr e;
    try {
      e = Expr(text);
    } catch (const Error& err) {
      fail(key, err.what());
    }
    for (const auto& n : e.names())
      if (!known.count(n)) fail(key, fmt::format("unknown name '{}' in '{}'", n, text));
    return e;
  }
  // A launch's global or local size: 1 to 3 expressions. One that names nothing is
  // checked here against what any launch may ask (launch_misfit's per-dimension rule), so
  // that "global": "-64" or "local": "0" is an error in the file, not a failed point.
  std::vector<Expr> dims(const ojson& j, const std::string& key, const std::set<std::string>& known) const {
    std::vector<Expr> out;
    auto one = [&](const ojson& d, const std::string& k) {
      auto e = expr(d, k, known);
      if (e.names().empty()) {
        double v = 0;
        try {
          v = e.eval({});
        } catch (const Error& err) {
          fail(k, err.what());
        }
        if (auto why = launch_dim_misfit(v, false); !why.empty())
          fail(k, fmt::format("'{}': a launch dimension of {}", e.text(), why));
      }
      out.push_back(std::move(e));
    };
    if (j.is_array()) {
      if (j.empty() || j.size() > 3) fail(key, "expected 1 to 3 dimensions");
      for (std::size_t i = 0; i < j.size(); ++i) one(j[i], fmt::format("{}[{}]", key, i));
    } else {
      one(j, key);
    }
    return out;
  }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// A kernel variant from a metadata object; `origin` names it in messages and relative
// file names start at `dir`.
// "?" in a local size makes that dimension tunable, as foreign-kernel descriptions write
// it: a parameter LWS<d> over the powers of two up to 1024, constrained to divide the
// global size, with the work-group within the device's limit. Returns the local sizes
// with each "?" replaced by its parameter's name.
ojson tunable_local(KernelVariant& v, const Meta& m, const ojson& launch, const std::string& key,
                    std::set<std::string>& known) {
  auto as_array = [](const ojson& x) { return x.is_array() ? x : ojson::array({x}); };
  auto text = [](const ojson& x) { return x.is_number_integer() ? std::to_string(x.get<long long>()) : x.get<std::string>(); };
  ojson local = as_array(launch["local"]);
  const ojson global = as_array(launch["global"]);
  std::string product;
  bool tunable = false;
  for (std::size_t d = 0; d < local.size(); ++d) {
    if (local[d].is_string() && local[d].get<std::string>() == "?") {
      tunable = true;
      const std::string name = fmt::format("LWS{}", d);
      if (!v.param(name)) {
        const long long def = local.size() == 1 ? 64 : local.size() == 2 ? 8 : 4;
        v.params.push_back(ParamDef{name, {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, def,
                                    fmt::format("local size in dimension {} ('?' in the metadata)", d)});
        known.insert(name);
      }
      local[d] = name;
      if (d < global.size() && (global[d].is_string() || global[d].is_number_integer()))
        v.constraints.push_back(
            m.expr(ojson(fmt::format("({}) % {} == 0", text(global[d]), name)), key, known));
    }
    if (local[d].is_string() || local[d].is_number_integer())
      product += (product.empty() ? "(" : " * (") + text(local[d]) + ")";
  }
  if (tunable && !product.empty()) v.constraints.push_back(m.expr(ojson(product + " <= max_wg"), key, known));
  return launch["local"].is_array() ? local : local[0];
}

// Whether `p` lies inside a kernel tree: the metadata's own folder, hetbench's kernel
// folder or one given with --kernels (a file given there: its folder). "../common/x.h"
// from a kernel's folder stays inside; "../../../etc/passwd" does not.
bool in_kernel_tree(const fs::path& p, const fs::path& dir) {
  const auto target = fs::weakly_canonical(p);
  std::vector<fs::path> roots{dir, kernel_dir()};
  for (const auto& k : kernel_paths()) roots.push_back(fs::is_directory(k) ? fs::path(k) : fs::path(k).parent_path());
  for (const auto& r : roots) {
    if (r.empty()) continue;
    const auto rel = target.lexically_relative(fs::weakly_canonical(r));
    if (!rel.empty() && *rel.begin() != "..") return true;
  }
  return false;
}

// The text a kernel is built from: its "includes", then the kernel file, each after a
// #line marker so that compiler messages name the file a line is in.
std::string kernel_source_text(const Meta& m, const ojson& j, const fs::path& dir, const fs::path& src) {
  auto read = [&](const fs::path& p) {
    try {
      return read_text_file(p.string());
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", m.file(), e.what()));
    }
  };
  std::string text;
  if (j.contains("includes")) {
    if (!j["includes"].is_array()) m.fail("includes", "expected an array of file names");
    for (std::size_t i = 0; i < j["includes"].size(); ++i) {
      auto key = fmt::format("includes[{}]", i);
      // Beside the metadata first, then under the kernel root: shared sources such as
      // "common/dfdd.h" are found wherever hetbench and its kernels are installed.
      const std::string name = m.str(j["includes"][i], key);
      if (fs::path(name).is_absolute()) m.fail(key, fmt::format("'{}' is an absolute path; name a file of the kernel tree", name));
      fs::path inc = dir / name;
      if (!file_exists(inc)) inc = fs::path(kernel_dir()) / name;
      if (!file_exists(inc))
        m.fail(key, fmt::format("file '{}' not found beside the metadata or under {}", name, kernel_dir()));
      if (!in_kernel_tree(inc, dir))
        m.fail(key, fmt::format("'{}' leads out of the kernel tree (to {}): an include is pasted into the kernel source",
                                name, fs::weakly_canonical(inc).string()));
      text += fmt::format("#line 1 \"{}\"\n{}\n", inc.filename().string(), read(inc));
    }
  }
  text += fmt::format("#line 1 \"{}\"\n{}", src.filename().string(), read(src));
  return text;
}

// The launches of `key` ("launches", "setup", or "" for the single-entry shorthand).
// `refused` names operands this list may not pass (setup launches may not touch outputs).
std::vector<LaunchSpec> parse_launches(KernelVariant& v, const Meta& m, const ojson& launches, const std::string& key_root,
                                       const std::set<std::string>& operands, const std::set<std::string>& buffers,
                                       std::set<std::string>& known,
                                       const std::set<std::string>* refused = nullptr) {
  std::vector<LaunchSpec> out;
  for (std::size_t li = 0; li < launches.size(); ++li) {
    const auto& l = launches[li];
    auto key = key_root.empty() ? std::string() : fmt::format("{}[{}]", key_root, li);
    auto sub = [&](const char* k) { return key.empty() ? std::string(k) : key + "." + k; };
    if (!l.is_object()) m.fail(key, "expected an object");
    LaunchSpec ls;
    if (!l.contains("kernel")) m.fail(sub("kernel"), "missing");
    ls.kernel = m.str(l["kernel"], sub("kernel"));
    if (!l.contains("args") || !l["args"].is_array()) m.fail(sub("args"), "expected an array of argument names");
    for (std::size_t ai = 0; ai < l["args"].size(); ++ai) {
      auto akey = fmt::format("{}[{}]", sub("args"), ai);
      auto a = m.str(l["args"][ai], akey);
      ArgSpec as;
      auto c = a.find(':');
      as.name = a.substr(0, c);
      if (c != std::string::npos) {
        as.type = a.substr(c + 1);
        if (as.type != "int" && as.type != "uint" && as.type != "long" && as.type != "ulong")
          m.fail(akey, fmt::format("unknown integer type '{}': expected int, uint, long or ulong", as.type));
      }
      if (refused && refused->count(as.name))
        m.fail(akey, fmt::format("'{}' is written by {}: a setup launch may read only input operands", as.name, v.op));
      if (!operands.count(as.name) && !buffers.count(as.name) && !known.count(as.name))
        m.fail(akey, fmt::format("'{}' is not an operand of {}, a scratch buffer or a known value", as.name, v.op));
      ls.args.push_back(std::move(as));
    }
    if (!l.contains("global")) m.fail(sub("global"), "missing");
    ls.global = m.dims(l["global"], sub("global"), known);
    if (l.contains("local") && !l["local"].is_null()) {
      ls.local = m.dims(tunable_local(v, m, l, sub("local"), known), sub("local"), known);
      if (ls.local.size() != ls.global.size()) m.fail(sub("local"), "must have as many dimensions as 'global'");
    }
    if (l.contains("local_bytes")) ls.local_bytes = m.expr(l["local_bytes"], sub("local_bytes"), known);
    if (l.contains("when")) ls.when = m.expr(l["when"], sub("when"), known);
    for (auto it = l.begin(); it != l.end(); ++it)
      if (it.key() != "kernel" && std::find(kLaunchKeys.begin(), kLaunchKeys.end(), it.key()) == kLaunchKeys.end())
        m.fail(sub(it.key().c_str()), "unknown key");
    out.push_back(std::move(ls));
  }
  return out;
}

// "default": an integer, or one per precision ({"S": 8, "D": 4}, each a precision of the
// variant); `def` is then the first precision's that is given.
void read_default(const Meta& m, const ojson& p, const std::string& key, const std::vector<Precision>& precs,
                  ParamDef& d) {
  auto check = [&](long long x, const std::string& k) {
    if (std::find(d.values.begin(), d.values.end(), x) == d.values.end())
      m.fail(k, fmt::format("{} is not among the values", x));
    return x;
  };
  if (!p.contains("default")) m.fail(key, "expected an integer or an object of PRECISION: integer");
  const ojson& def = p["default"];
  if (def.is_number_integer()) {
    d.def = check(def.get<long long>(), key);
    return;
  }
  if (!def.is_object() || def.empty()) m.fail(key, "expected an integer or an object of PRECISION: integer");
  for (auto it = def.begin(); it != def.end(); ++it) {
    const std::string k = key + "." + it.key();
    Precision pr{};
    try {
      pr = parse_precision(it.key());
    } catch (const Error& e) {
      m.fail(k, e.what());
    }
    if (std::find(precs.begin(), precs.end(), pr) == precs.end()) m.fail(k, "not a precision of this variant");
    if (!it.value().is_number_integer()) m.fail(k, "expected an integer");
    d.def_by_precision[pr] = check(it.value().get<long long>(), k);
  }
  d.def = d.def_by_precision.begin()->second;
  for (auto pr : precs)
    if (d.def_by_precision.count(pr)) {
      d.def = d.def_by_precision[pr];
      break;
    }
}

std::shared_ptr<KernelVariant> variant_from_json(const ojson& j, const fs::path& dir, const std::string& origin) {
  Meta m(origin);
  if (!j.is_object()) throw Error(fmt::format("{}: expected a JSON object", origin));
  static const std::set<std::string> allowed{"name",   "op",       "description", "source",    "includes",
                                             "precisions", "requires", "params",   "constraints", "let",
                                             "scratch", "defines", "launches", "setup", "entry",     "args",        "global",
                                             "local",   "local_bytes", "backend", "candidates", "symbols",
                                             "op_declaration"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!allowed.count(it.key())) m.fail(it.key(), "unknown key");
  for (const char* req : {"name", "op", "source", "precisions"})
    if (!j.contains(req)) m.fail(req, "missing");

  auto v = std::make_shared<KernelVariant>();
  v->origin = origin;
  v->kind = VariantKind::Kernel;
  v->name = m.str(j["name"], "name");
  v->op = m.str(j["op"], "op");
  const Op* op = nullptr;
  // A kernel of no built-in op declares its own (a T1 problem's operands).
  if (j.contains("op_declaration")) {
    op = &declare_op(v->op, j["op_declaration"], origin);
  } else {
    try {
      op = &find_op(v->op);
    } catch (const Error& e) {
      m.fail("op", e.what());
    }
  }
  v->description = j.contains("description") ? m.str(j["description"], "description") : "";
  auto src_name = m.str(j["source"], "source");
  fs::path src = dir / src_name;
  std::string backend;
  if (j.contains("backend")) backend = m.str(j["backend"], "backend");
  else if (src.extension() == ".cl") backend = "opencl";
  else if (src.extension() == ".cu") backend = "cuda";
  else m.fail("source", "expected a .cl or .cu file");
  if (backend != "opencl" && backend != "cuda") m.fail("backend", "expected 'opencl' or 'cuda'");
  v->backend = *parse_backend(backend);
  if (!file_exists(src)) m.fail("source", fmt::format("file '{}' not found", src.string()));
  v->source_path = src.string();

  if (!j["precisions"].is_array() || j["precisions"].empty()) m.fail("precisions", "expected a non-empty array");
  for (std::size_t i = 0; i < j["precisions"].size(); ++i) {
    auto key = fmt::format("precisions[{}]", i);
    try {
      v->precisions.push_back(parse_precision(m.str(j["precisions"][i], key)));
    } catch (const Error& e) {
      m.fail(key, e.what());
    }
  }
  if (j.contains("requires")) {
    if (!j["requires"].is_array()) m.fail("requires", "expected an array of extension names");
    for (std::size_t i = 0; i < j["requires"].size(); ++i)
      v->required_ext.push_back(m.str(j["requires"][i], fmt::format("requires[{}]", i)));
  }

  std::set<std::string> known;
  for (const auto& [k, val] : device_vars(DeviceInfo{}, Precision::S)) known.insert(k);
  for (const auto& s : op->signature().size_keys()) known.insert(s);

  if (j.contains("params")) {
    if (!j["params"].is_object()) m.fail("params", "expected an object of NAME: {values|range, default}");
    for (auto it = j["params"].begin(); it != j["params"].end(); ++it) {
      auto key = "params." + it.key();
      const auto& p = it.value();
      ParamDef d;
      d.name = it.key();
      if (!p.is_object()) m.fail(key, "expected an object with 'values' or 'range'");
      if (p.contains("values")) {
        if (!p["values"].is_array() || p["values"].empty()) m.fail(key + ".values", "expected a non-empty array of integers");
        for (const auto& x : p["values"]) {
          if (!x.is_number_integer()) m.fail(key + ".values", "expected integers");
          d.values.push_back(x.get<long long>());
        }
      } else if (p.contains("range")) {
        try {
          d.values = parse_int_list(m.str(p["range"], key + ".range"), "range");
        } catch (const Error& e) {
          m.fail(key + ".range", e.what());
        }
      } else {
        m.fail(key, "expected 'values' or 'range'");
      }
      read_default(m, p, key + ".default", v->precisions, d);
      if (p.contains("doc")) d.doc = m.str(p["doc"], key + ".doc");
      v->params.push_back(std::move(d));
      known.insert(it.key());
    }
  }
  if (j.contains("candidates")) {
    const auto& cs = j["candidates"];
    if (!cs.is_array() || cs.empty()) m.fail("candidates", "expected a non-empty array of {PARAM: value} objects");
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const auto key = fmt::format("candidates[{}]", i);
      if (!cs[i].is_object() || cs[i].empty()) m.fail(key, "expected an object of PARAM: value");
      ParamValues pv;
      for (auto it = cs[i].begin(); it != cs[i].end(); ++it) {
        const ParamDef* d = v->param(it.key());
        if (!d) m.fail(key + "." + it.key(), "is not a parameter of this variant");
        if (!it.value().is_number_integer()) m.fail(key + "." + it.key(), "expected an integer");
        const long long x = it.value().get<long long>();
        if (std::find(d->values.begin(), d->values.end(), x) == d->values.end())
          m.fail(key + "." + it.key(), fmt::format("{} is outside the parameter's domain", x));
        pv[it.key()] = x;
      }
      v->candidates.push_back(std::move(pv));
    }
  }
  if (j.contains("constraints")) {
    if (!j["constraints"].is_array()) m.fail("constraints", "expected an array of expressions");
    for (std::size_t i = 0; i < j["constraints"].size(); ++i)
      v->constraints.push_back(m.expr(j["constraints"][i], fmt::format("constraints[{}]", i), known));
  }
  if (j.contains("let")) {
    if (!j["let"].is_object()) m.fail("let", "expected an object of NAME: expression");
    for (auto it = j["let"].begin(); it != j["let"].end(); ++it) {
      v->lets.emplace_back(it.key(), m.expr(it.value(), "let." + it.key(), known));
      known.insert(it.key());
    }
  }
  // Compile-time values that depend on the problem, e.g. a GEMM's layout:
  // "defines": {"TRANS_A": "ta"}.
  if (j.contains("defines")) {
    if (!j["defines"].is_object()) m.fail("defines", "expected an object of NAME: expression");
    for (auto it = j["defines"].begin(); it != j["defines"].end(); ++it) {
      if (v->param(it.key())) m.fail("defines." + it.key(), "is already a parameter");
      v->defines.emplace_back(it.key(), m.expr(it.value(), "defines." + it.key(), known));
    }
  }
  std::set<std::string> buffers;
  if (j.contains("scratch")) {
    if (!j["scratch"].is_object()) m.fail("scratch", "expected an object of NAME: {count, type}");
    for (auto it = j["scratch"].begin(); it != j["scratch"].end(); ++it) {
      auto key = "scratch." + it.key();
      const auto& s = it.value();
      if (!s.is_object() || !s.contains("count")) m.fail(key, "expected an object with 'count'");
      ScratchSpec sp{it.key(), m.expr(s["count"], key + ".count", known), false};
      if (s.contains("type")) {
        auto t = m.str(s["type"], key + ".type");
        if (t != "real" && t != "int") m.fail(key + ".type", "expected 'real' or 'int'");
        sp.is_int = t == "int";
      }
      if (s.contains("init")) {
        auto init = m.str(s["init"], key + ".init");
        if (init != "zero" && init != "none") m.fail(key + ".init", "expected 'zero' or 'none'");
        sp.zero = init == "zero";
      }
      v->scratch.push_back(std::move(sp));
      buffers.insert(it.key());
    }
  }

  std::set<std::string> operands;
  for (const auto& o : op->signature().operands) operands.insert(o.name);

  ojson launches;
  if (j.contains("launches")) {
    if (j.contains("entry")) m.fail("entry", "give either 'launches' or a single 'entry', not both");
    for (const auto& k : kLaunchKeys)
      if (j.contains(k)) m.fail(k, "give either 'launches' or a single 'entry', not both");
    launches = j["launches"];
    if (!launches.is_array() || launches.empty()) m.fail("launches", "expected a non-empty array");
  } else {
    if (!j.contains("entry")) m.fail("entry", "missing (or give 'launches')");
    ojson one = ojson::object();
    one["kernel"] = j["entry"];
    for (const auto& k : kLaunchKeys)
      if (j.contains(k)) one[k] = j[k];
    launches = ojson::array({one});
  }
  v->launches = parse_launches(*v, m, launches, j.contains("launches") ? "launches" : "", operands, buffers, known);
  if (j.contains("setup")) {
    // Setup launches run once when the point is prepared, untimed (a partition of the
    // matrix, as cusparseSpMV_preprocess does): they may read only operands that no run
    // changes, so that what they compute stays true for every timed repetition.
    const auto& su = j["setup"];
    if (!su.is_array() || su.empty()) m.fail("setup", "expected a non-empty array of launches");
    std::set<std::string> inputs;
    for (const auto& o : op->signature().operands)
      if (o.access == Access::In) inputs.insert(o.name);
    std::set<std::string> writable;
    for (const auto& name : operands)
      if (!inputs.count(name)) writable.insert(name);
    v->setup = parse_launches(*v, m, su, "setup", inputs, buffers, known, &writable);
  }

  if (j.contains("symbols")) {
    // Module globals filled from an input operand when the point is prepared, untimed:
    // CUDA's __constant__ memory, which no kernel argument can point into.
    if (!j["symbols"].is_object()) m.fail("symbols", "expected an object of SYMBOL: operand");
    for (auto it = j["symbols"].begin(); it != j["symbols"].end(); ++it) {
      const auto key = "symbols." + it.key();
      const auto operand = m.str(it.value(), key);
      const auto* spec = op->signature().operand(operand);
      if (!spec || !spec->array || spec->access != Access::In)
        m.fail(key, fmt::format("'{}' is not an input array of {}", operand, v->op));
      v->symbols.emplace_back(it.key(), operand);
    }
  }

  v->source_text = kernel_source_text(m, j, dir, src);
  return v;
}

std::shared_ptr<KernelVariant> parse_metadata(const fs::path& json_path) {
  const auto j = read_json_file<ojson>(json_path.string());
  // A GEMMbench entry (hand-written: "file"; Lift-generated: "kernel_name") is no
  // metadata file: say where it goes rather than which key is unknown.
  if (j.is_object() && !j.contains("source") && (j.contains("file") || j.contains("kernel_name")))
    throw Error(fmt::format("{}: a GEMMbench entry, not hetbench kernel metadata: give it to `run gemm --kernel` or "
                            "`tune gemm --kernel` (an experiment of it replays from its own copy)",
                            json_path.string()));
  return variant_from_json(j, json_path.parent_path(), json_path.string());
}

}  // namespace

std::shared_ptr<Variant> register_variant_json(const nlohmann::ordered_json& j, const std::string& dir,
                                               const std::string& origin) {
  auto v = variant_from_json(j, dir, origin);
  register_variant(v);
  return v;
}

std::shared_ptr<Variant> parse_variant_json(const nlohmann::ordered_json& j, const std::string& dir,
                                            const std::string& origin) {
  return variant_from_json(j, dir, origin);
}

void load_variant_metadata(const std::string& path) {
  fs::path p(path);
  if (!fs::exists(p)) throw Error(fmt::format("kernel path '{}' does not exist", path));
  std::vector<fs::path> files;
  if (fs::is_directory(p)) {
    for (const auto& e : fs::recursive_directory_iterator(p))
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  } else {
    files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) register_variant(parse_metadata(f));
}

}  // namespace hetbench
