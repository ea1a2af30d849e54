// Kernel Tuner's own T1 files into hetbench metadata (interop/t1_foreign.hpp). What Kernel
// Tuner 1.5's tune_kernel_T1 runs is what hetbench runs: the grid is ProblemSize divided by
// the product of GridDiv (rounded up), the block is the block_size_x/y/z parameters (256, 1,
// 1 where they are not tuned), the source gets Kernel Tuner's defines, and an argument of
// MemType Constant is copied into the __constant__ symbol of its name. KernelSpecification's
// GlobalSize and LocalSize, which Kernel Tuner does not read, are not used either: in its own
// convolution example GlobalSize counts 64 times the blocks that it launches.
#include "interop/t1_foreign.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <set>

#include "hetbench/expr.hpp"

#include <fmt/format.h>

namespace hetbench {

namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kAxes[3] = {"X", "Y", "Z"};
constexpr const char* kBlock[3] = {"block_size_x", "block_size_y", "block_size_z"};
constexpr const char* kGrid[3] = {"grid_size_x", "grid_size_y", "grid_size_z"};
constexpr long long kBlockDefault[3] = {256, 1, 1};  // Kernel Tuner's, where not tuned

std::string int_suffix(const std::string& type) {
  if (type == "int32") return ":int";
  if (type == "uint32") return ":uint";
  if (type == "int64") return ":long";
  if (type == "uint64") return ":ulong";
  return "";
}

// One GridDiv entry (a Python expression, or a number) as a hetbench expression.
std::string divisor(const ojson& kernel, int d, const std::set<std::string>& params, const T1Reader& r) {
  const std::string field = std::string("GridDiv") + kAxes[d];
  const std::string key = "KernelSpecification." + field;
  if (!kernel.contains(field) || kernel[field].is_null() || (kernel[field].is_array() && kernel[field].empty()))
    return params.count(kBlock[d]) ? kBlock[d] : "1";
  if (!kernel[field].is_array()) r.fail(key, "expected an array of divisors");
  std::string out;
  for (std::size_t i = 0; i < kernel[field].size(); ++i)
    out += (out.empty() ? "(" : " * (") + r.expr(kernel[field][i], fmt::format("{}[{}]", key, i)) + ")";
  return out;
}

// A vector's Size as Kernel Tuner 1.5 reads it: a number, or a Python expression evaluated
// once with ProblemSize and each parameter bound to its list of values (its own
// convolution example sizes the input by max(filter_width)). ProblemSize[i] and max/min of
// a parameter are replaced by their numbers; what remains must be a constant.
long long vector_size(const ojson& size, const std::vector<long long>& ps, const ojson& params, const std::string& key,
                      const T1Reader& r) {
  if (size.is_number_integer()) return size.get<long long>();
  std::string text = r.str(size, key);
  auto replace = [&](const std::regex& re, auto value) {
    std::string out;
    auto it = std::sregex_iterator(text.begin(), text.end(), re);
    std::size_t last = 0;
    for (; it != std::sregex_iterator(); ++it) {
      out += text.substr(last, it->position() - last) + std::to_string(value(*it));
      last = it->position() + it->length();
    }
    text = out + text.substr(last);
  };
  replace(std::regex(R"(ProblemSize\s*\[\s*(\d)\s*\])"), [&](const std::smatch& m) {
    const std::size_t d = std::stoul(m[1]);
    if (d >= ps.size()) r.fail(key, fmt::format("ProblemSize[{}]: the problem has {} dimension(s)", d, ps.size()));
    return ps[d];
  });
  replace(std::regex(R"(\b(max|min)\s*\(\s*([A-Za-z_]\w*)\s*\))"), [&](const std::smatch& m) {
    if (!params.contains(m[2].str())) r.fail(key, fmt::format("'{}' is not a parameter", m[2].str()));
    const auto v = params[m[2].str()]["values"].get<std::vector<long long>>();
    return m[1] == "max" ? *std::max_element(v.begin(), v.end()) : *std::min_element(v.begin(), v.end());
  });
  try {
    return eval_int(Expr(from_python(text)), {});
  } catch (const Error& e) {
    r.fail(key, fmt::format("'{}': {} (Kernel Tuner evaluates a Size once, with each parameter a list of its "
                            "values: hetbench reads numbers, ProblemSize[i] and max or min of a parameter)",
                            size.get<std::string>(), e.what()));
  }
}

}  // namespace

std::string t1_declared_op_name(const ojson& t1, const std::string& given, const T1Reader& r) {
  std::string n = given;
  if (n.empty() && t1.contains("General") && t1["General"].is_object() && t1["General"].contains("BenchmarkName"))
    n = r.str(t1["General"]["BenchmarkName"], "General.BenchmarkName");
  if (n.empty()) n = r.str(r.at(r.at(t1, "KernelSpecification", "KernelSpecification"), "KernelName",
                                "KernelSpecification.KernelName"),
                           "KernelSpecification.KernelName");
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (std::isdigit(static_cast<unsigned char>(n[0]))) n = "t1_" + n;
  return n;
}

void t1_foreign_to_metadata(ojson& meta, const ojson& t1, const T1Reader& r, std::vector<std::string>& notes) {
  const ojson& kernel = r.at(t1, "KernelSpecification", "KernelSpecification");
  const bool cuda = meta["backend"] == "cuda";
  std::set<std::string> params;
  for (auto it = meta["params"].begin(); it != meta["params"].end(); ++it) params.insert(it.key());

  // The problem: ProblemSize, a number or one to three numbers.
  const ojson& psj = r.at(kernel, "ProblemSize", "KernelSpecification.ProblemSize");
  std::vector<long long> ps;
  const ojson list = psj.is_array() ? psj : ojson::array({psj});
  if (list.empty() || list.size() > 3) r.fail("KernelSpecification.ProblemSize", "expected one to three sizes");
  for (std::size_t d = 0; d < list.size(); ++d) {
    if (!list[d].is_number_integer() || list[d].get<long long>() < 1)
      r.fail(fmt::format("KernelSpecification.ProblemSize[{}]", d),
             "expected a number >= 1 (a size that depends on the parameters would change the operands' lengths, "
             "which a declared op fixes)");
    ps.push_back(list[d].get<long long>());
  }
  if (kernel.contains("SharedMemory") && !(kernel["SharedMemory"].is_number_integer() && kernel["SharedMemory"] == 0))
    r.fail("KernelSpecification.SharedMemory", "dynamic shared memory is not imported (Kernel Tuner's T1 reader does "
                                              "not pass it either): only 0");
  if (kernel.contains("CompilerOptions") && !kernel["CompilerOptions"].empty())
    notes.push_back(fmt::format("KernelSpecification.CompilerOptions {} are not carried: hetbench compiles with its "
                                "own options",
                                kernel["CompilerOptions"].dump()));

  // Arguments: the op's operands, the launch's arguments, constant memory.
  const ojson& args = r.at(kernel, "Arguments", "KernelSpecification.Arguments");
  if (!args.is_array() || args.empty()) r.fail("KernelSpecification.Arguments", "expected a non-empty array");
  ojson operands = ojson::array(), launch_args = ojson::array(), symbols = ojson::object();
  std::string real;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string key = fmt::format("KernelSpecification.Arguments[{}]", i);
    const ojson& a = args[i];
    const std::string name = r.str(r.at(a, "Name", key + ".Name"), key + ".Name");
    const std::string type = r.str(r.at(a, "Type", key + ".Type"), key + ".Type");
    const std::string mem = r.str(r.at(a, "MemoryType", key + ".MemoryType"), key + ".MemoryType");
    const bool vector = mem == "Vector";
    if (!vector && mem != "Scalar") r.fail(key + ".MemoryType", fmt::format("'{}': expected Vector or Scalar", mem));
    const bool is_real = type == "float" || type == "double";
    if (!is_real && type != "int32" && (vector || int_suffix(type).empty()))
      r.fail(key + ".Type", fmt::format("'{}': a {} is float, double or int32{}", type, vector ? "vector" : "scalar",
                                        vector ? "" : ", uint32, int64 or uint64"));
    if (is_real) {
      if (!real.empty() && real != type)
        r.fail(key + ".Type", fmt::format("'{}' after '{}': hetbench runs one real type per problem", type, real));
      real = type;
    }
    ojson op{{"name", name}, {"type", type}};
    if (vector) {
      const long long count = vector_size(r.at(a, "Size", key + ".Size"), ps, meta["params"], key + ".Size", r);
      if (count < 1) r.fail(key + ".Size", fmt::format("{} elements: expected at least 1", count));
      op["count"] = count;
      std::string access = "inout";
      if (!a.contains("AccessType")) {
        notes.push_back(fmt::format("{} has no AccessType: read and written (ReadWrite)", name));
      } else {
        const std::string at = r.str(a["AccessType"], key + ".AccessType");
        if (at == "ReadOnly") access = "in";
        else if (at == "WriteOnly") access = "out";
        else if (at != "ReadWrite") r.fail(key + ".AccessType", fmt::format("'{}': expected ReadOnly, WriteOnly or ReadWrite", at));
      }
      op["access"] = access;
      if (access != "out") {
        const std::string fill = r.str(r.at(a, "FillType", key + ".FillType"), key + ".FillType");
        if (fill == "Random") {
          if (!is_real) r.fail(key + ".FillType", "Random int32 vectors would hold no valid indices: give Constant");
          op["fill"] = "random";
        } else if (fill == "Constant") {
          const ojson& v = r.at(a, "FillValue", key + ".FillValue");
          if (!v.is_number()) r.fail(key + ".FillValue", "expected a number");
          op["fill"] = v;
        } else {
          r.fail(key + ".FillType", fmt::format("'{}': expected Random or Constant", fill));
        }
      }
      if (a.contains("MemType") && r.str(a["MemType"], key + ".MemType") == "Constant") {
        if (!cuda) r.fail(key + ".MemType", "constant memory filled by name exists in CUDA only (Kernel Tuner's OpenCL backend refuses it too)");
        if (access != "in") r.fail(key + ".MemType", "constant memory is read-only: AccessType must be ReadOnly");
        symbols[name] = name;
      }
    } else {
      const ojson& v = r.at(a, "FillValue", key + ".FillValue");
      if (is_real ? !v.is_number() : !v.is_number_integer())
        r.fail(key + ".FillValue", is_real ? "expected a number" : "expected an integer");
      op["value"] = v;
    }
    operands.push_back(op);
    launch_args.push_back(name + (vector ? "" : int_suffix(type)));
  }

  // The launch as Kernel Tuner makes it.
  ojson lets = ojson::object(), defines = ojson::object();
  std::size_t dims = ps.size();
  for (int d = 0; d < 3; ++d) {
    if (params.count(kBlock[d])) dims = std::max<std::size_t>(dims, d + 1);
    else lets[kBlock[d]] = std::to_string(kBlockDefault[d]);
    if (kernel.contains("LocalSize") && kernel["LocalSize"].is_object() && kernel["LocalSize"].contains(kAxes[d])) {
      const std::string l = r.expr(kernel["LocalSize"][kAxes[d]], std::string("KernelSpecification.LocalSize.") + kAxes[d]);
      const std::string kt = params.count(kBlock[d]) ? kBlock[d] : std::to_string(kBlockDefault[d]);
      std::string bare;
      for (char c : l)
        if (c != '(' && c != ')' && c != ' ') bare += c;
      if (bare != kt)
        notes.push_back(fmt::format("LocalSize.{} is '{}', but Kernel Tuner launches blocks of {} along {}: so does "
                                    "hetbench",
                                    kAxes[d], l, kt, kAxes[d]));
    }
  }
  ojson global = ojson::array(), local = ojson::array();
  for (int d = 0; d < 3; ++d) {
    const long long size = d < static_cast<int>(ps.size()) ? ps[d] : 1;
    const std::string grid = fmt::format("ceil({} / ({}))", size, divisor(kernel, d, params, r));
    defines[kGrid[d]] = grid;
    if (!params.count(kBlock[d])) defines[kBlock[d]] = std::to_string(kBlockDefault[d]);
    if (d < static_cast<int>(dims)) {
      global.push_back(fmt::format("({}) * {}", grid, kBlock[d]));
      local.push_back(kBlock[d]);
    }
  }
  defines["kernel_tuner"] = "1";

  ojson problem = ojson::object();
  for (std::size_t d = 0; d < ps.size(); ++d) problem[std::string(1, static_cast<char>('x' + d))] = ps[d];
  const std::string bench = t1.contains("General") && t1["General"].contains("BenchmarkName") && t1["General"]["BenchmarkName"].is_string()
                                ? t1["General"]["BenchmarkName"].get<std::string>()
                                : meta["name"].get<std::string>();
  meta["description"] = fmt::format("Kernel Tuner T1 problem '{}' ({} arguments, problem {})", bench, args.size(),
                                    psj.dump());
  meta["precisions"] = ojson::array({real == "double" ? "D" : real == "float" ? "S" : "I32"});
  meta["op_declaration"] = ojson{{"description", fmt::format("the operands of the T1 problem '{}'", bench)},
                                 {"problem", problem},
                                 {"operands", operands}};
  if (!lets.empty()) meta["let"] = lets;
  meta["defines"] = defines;
  meta["launches"] = ojson::array({ojson{{"kernel", r.str(kernel["KernelName"], "KernelSpecification.KernelName")},
                                         {"args", launch_args},
                                         {"global", global},
                                         {"local", local}}});
  if (!symbols.empty()) meta["symbols"] = symbols;
}

std::string t1_foreign_source(const std::string& text, bool cuda, const std::string& file) {
  if (!cuda || text.find("extern \"C\"") != std::string::npos) return text;
  return fmt::format("// {} as Kernel Tuner compiles it: kernels by their plain names (hetbench kernel import-t1)\n"
                     "extern \"C\" {{\n#line 1 \"{}\"\n{}\n}}\n",
                     file, file, text);
}

}  // namespace hetbench
