// GEMMbench's Lift-generated entries: a JSON file {"kernel_name", "global_size",
// "local_size", "argument_order"} beside the OpenCL kernel of the same base name. The
// kernels take no alpha and beta: they compute C = A·Bᵀ with A m×k and B n×k, both
// row-major (each work-item reads rows of A and rows of B along k, vload-ed), that is
// GEMMbench's NT layout with C only written: the problem gemm size@NT@plain. The
// precision is the element type of the kernel's pointer arguments; the integer
// arguments keep the kernel's types; "?" in local_size is a tunable local size.
#include <filesystem>
#include <cmath>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "kernel/foreign/foreign.hpp"
#include "util/json_file.hpp"
#include "hetbench/error.hpp"
#include "hetbench/expr.hpp"

namespace hetbench::foreign_detail {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

struct KernelParam {
  bool pointer = false;
  std::string type;  // pointers: "float" or "double"; integers: int, uint, long, ulong
};

// The parameters of `kernel` in OpenCL C source `text`; throws Error naming the file.
std::vector<KernelParam> kernel_params(const std::string& text, const std::string& kernel, const std::string& cl,
                                       const std::string& file) {
  std::smatch m;
  const std::regex head("(__)?kernel\\s+void\\s+" + kernel + "\\s*\\(([^)]*)\\)");
  if (!std::regex_search(text, m, head)) bad(file, "kernel_name", fmt::format("no kernel '{}' in '{}'", kernel, cl));
  std::vector<KernelParam> out;
  const std::string list = m[2];
  static const std::regex real("\\b(float|double)\\b"), integer("^(const\\s+)?(unsigned\\s+int|unsigned\\s+long|uint|int|ulong|long)\\s+\\w+$");
  for (std::size_t start = 0; start <= list.size();) {
    const auto comma = std::min(list.find(',', start), list.size());
    std::string p = std::regex_replace(list.substr(start, comma - start), std::regex("^\\s+|\\s+$"), "");
    start = comma + 1;
    KernelParam kp;
    std::smatch pm;
    if (p.find('*') != std::string::npos && std::regex_search(p, pm, real)) {
      kp.pointer = true;
      kp.type = pm[1];
    } else if (std::regex_match(p, pm, integer)) {
      const std::string t = pm[2];
      kp.type = t.find("long") != std::string::npos ? (t[0] == 'u' ? "ulong" : "long") : (t[0] == 'u' ? "uint" : "int");
    } else {
      bad(file, "kernel_name", fmt::format("kernel '{}' in '{}': parameter '{}' is neither a float or double pointer nor "
                                           "an integer", kernel, cl, p));
    }
    out.push_back(kp);
  }
  return out;
}

// global_size or local_size: 1 to 3 expressions over m, n, k (local: or "?").
ojson dims(const std::string& file, const ojson& j, const char* key, bool local) {
  if (!j.contains(key)) bad(file, key, "missing");
  const ojson& d = j[key];
  if (!d.is_array() || d.empty() || d.size() > 3) bad(file, key, "expected an array of 1 to 3 expressions");
  for (std::size_t i = 0; i < d.size(); ++i) {
    const auto k = fmt::format("{}[{}]", key, i);
    if (d[i].is_number_integer()) continue;
    if (!d[i].is_string()) bad(file, k, "expected an expression");
    const auto text = d[i].get<std::string>();
    if (local && text == "?") continue;
    try {
      const Expr e(text);
      for (const auto& n : e.names())
        if (n != "m" && n != "n" && n != "k") bad(file, k, fmt::format("unknown name '{}' in '{}': expected m, n, k", n, text));
      if (e.names().empty()) (void)e.eval({});  // "1/0" is the file's error, named here
    } catch (const Error& e) {
      if (std::string(e.what()).rfind(file, 0) == 0) throw;
      bad(file, k, e.what());
    }
  }
  return d;
}

}  // namespace

ForeignKernel lift_entry(const std::string& file, const ojson& j) {
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "kernel_name" && it.key() != "global_size" && it.key() != "local_size" &&
        it.key() != "argument_order")
      bad(file, it.key(), "unknown key in a Lift entry");
  if (!j["kernel_name"].is_string() || !std::regex_match(j["kernel_name"].get<std::string>(), std::regex("[A-Za-z_]\\w*")))
    bad(file, "kernel_name", "expected a kernel's name");
  const std::string kernel = j["kernel_name"];
  const ojson global = dims(file, j, "global_size", false), local = dims(file, j, "local_size", true);
  if (local.size() != global.size()) bad(file, "local_size", "must have as many dimensions as 'global_size'");

  const fs::path cl = fs::path(file).replace_extension(".cl");
  if (!fs::exists(cl)) bad(file, "kernel_name", fmt::format("its source '{}' (the .cl beside the entry) is missing", cl.string()));
  const auto params = kernel_params(read_text_file(cl.string()), kernel, cl.string(), file);

  if (!j.contains("argument_order")) bad(file, "argument_order", "missing");
  const ojson& order = j["argument_order"];
  if (!order.is_array()) bad(file, "argument_order", "expected an array of names among a, b, c, k, m, n");
  if (order.size() != params.size())
    bad(file, "argument_order",
        fmt::format("names {} arguments, but kernel '{}' in '{}' takes {}", order.size(), kernel, cl.string(), params.size()));
  ForeignKernel e;
  e.format = "Lift";
  e.path = file;
  std::string precision;
  ojson args = ojson::array();
  std::set<std::string> seen;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto key = fmt::format("argument_order[{}]", i);
    const std::string a = order[i].is_string() ? order[i].get<std::string>() : "";
    const bool matrix = a == "a" || a == "b" || a == "c";
    if (!matrix && a != "k" && a != "m" && a != "n") bad(file, key, "expected one of a, b, c, k, m, n");
    if (!seen.insert(a).second) bad(file, key, fmt::format("'{}' is named twice", a));
    if (matrix != params[i].pointer)
      bad(file, key, fmt::format("'{}' is {}, but parameter {} of kernel '{}' is {}", a, matrix ? "a matrix" : "a size", i,
                                 kernel, params[i].pointer ? "a pointer" : "an integer"));
    if (matrix) {
      if (!precision.empty() && precision != params[i].type)
        bad(file, key, fmt::format("kernel '{}' mixes float and double matrices", kernel));
      precision = params[i].type;
      args.push_back(std::string(1, static_cast<char>(a[0] - 'a' + 'A')));
    } else {
      args.push_back(a + ":" + params[i].type);
    }
  }
  for (const char* m : {"a", "b", "c"})
    if (!seen.count(m)) bad(file, "argument_order", fmt::format("names no '{}': the kernel computes C = A*B", m));
  e.precision = precision == "double" ? Precision::D : Precision::S;
  e.suffix = "@NT@plain";
  for (std::size_t d = 0; d < local.size(); ++d)
    if (local[d].is_string() && local[d].get<std::string>() == "?") e.local_params.push_back(fmt::format("LWS{}", d));
  std::vector<Expr> global_exprs;
  for (const auto& g : global) global_exprs.emplace_back(g.is_string() ? g.get<std::string>() : std::to_string(g.get<long long>()));
  e.misfit = [global_exprs, file](const Sizes& s) {
    if (auto why = square_misfit(s); !why.empty()) return why;
    Vars v;
    for (const char* k : {"m", "n", "k"}) v[k] = static_cast<double>(s.at(k));
    for (std::size_t d = 0; d < global_exprs.size(); ++d) {
      double w = 0;
      try {
        w = global_exprs[d].eval(v);
      } catch (const Error& err) {
        bad(file, fmt::format("global_size[{}]", d), err.what());
      }
      if (w != std::floor(w) || w < 1)
        return fmt::format("global_size[{}] '{}' is {} for the order {}: not a whole number of work-items", d,
                           global_exprs[d].text(), w, s.at("n"));
    }
    return std::string();
  };
  const std::string name = fs::path(file).stem().string();
  const ojson meta = {
      {"name", name},
      {"op", "gemm"},
      {"description", fmt::format("Lift-generated GEMMbench entry {} ({}, C = A*B^T)", fs::path(file).filename().string(),
                                  hetbench::name(e.precision))},
      {"source", cl.filename().string()},
      {"precisions", {std::string(hetbench::name(e.precision))}},
      {"entry", kernel},
      {"args", args},
      {"global", global},
      {"local", local}};
  e.variant = register_variant_json(meta, cl.parent_path().string(), file);
  e.files = {file, cl.string()};
  return e;
}

}  // namespace hetbench::foreign_detail
