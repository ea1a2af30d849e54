#include "kernel/foreign/foreign.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/json_file.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"

namespace hetbench {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace foreign_detail {

void bad(const std::string& file, const std::string& key, const std::string& what) {
  throw Error(fmt::format("{}: key '{}': {}", file, key, what));
}

std::string square_misfit(const Sizes& s) {
  const auto m = s.at("m"), n = s.at("n"), k = s.at("k");
  if (m == n && n == k) return "";
  return fmt::format("the entry multiplies square matrices, this size is {}x{}x{}", m, n, k);
}

}  // namespace foreign_detail

std::vector<std::string> ForeignKernel::sizes(const std::vector<std::string>& tokens) const {
  const Op& op = find_op(variant->op);
  std::vector<std::string> out;
  for (const auto& tok : tokens) {
    const auto at = tok.find('@');
    const std::string t = tok.substr(0, at) + suffix;
    if (at != std::string::npos) {
      // The axes the token names must be the entry's.
      const Sizes asked = op.parse_sizes("1" + tok.substr(at)).front(), fixed = op.parse_sizes("1" + suffix).front();
      for (const auto& [key, value] : asked)
        if (fixed.count(key) && fixed.at(key) != value)
          throw Error(fmt::format("size '{}' asks for layout {}, but {} entry {} is {}", tok, tok.substr(at + 1), format,
                                  path, suffix.substr(1)));
    }
    for (const auto& s : op.parse_sizes(t))
      if (auto why = misfit ? misfit(s) : std::string(); !why.empty())
        throw Error(fmt::format("{} entry {}: size '{}': {}", format, path, tok, why));
    out.push_back(t);
  }
  return out;
}

std::map<std::string, std::string> ForeignKernel::local_size(const std::string& lws) const {
  std::vector<std::string> values;
  for (std::size_t start = 0; start <= lws.size();) {
    const auto comma = std::min(lws.find(',', start), lws.size());
    values.push_back(lws.substr(start, comma - start));
    start = comma + 1;
  }
  if (values.size() != local_params.size() || std::count(values.begin(), values.end(), ""))
    throw Error(fmt::format("--lws '{}': {} entry {} has {} tunable local dimensions ({}): give {} values", lws, format,
                            path, local_params.size(), fmt::join(local_params, ", "), local_params.size()));
  std::map<std::string, std::string> out;
  for (std::size_t d = 0; d < values.size(); ++d) out[local_params[d]] = values[d];
  return out;
}

std::vector<ForeignKernel> load_foreign_kernels(const std::string& op, const std::string& path) {
  fs::path p(path);
  if (!fs::exists(p)) throw Error(fmt::format("kernel entry '{}' does not exist", path));
  // Once per path: the entries register variants, which a second load would define twice
  // (the command loads them, then the experiment records their files).
  static std::mutex mu;
  static std::map<std::string, std::vector<ForeignKernel>> loaded;
  std::lock_guard lock(mu);
  const std::string key = fs::weakly_canonical(p).string();
  if (auto it = loaded.find(key); it != loaded.end()) return it->second;
  const bool folder = fs::is_directory(p);
  std::vector<fs::path> files;
  if (folder) {
    for (const auto& f : fs::directory_iterator(p))
      if (f.path().extension() == ".json") files.push_back(f.path());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(p);
  }
  std::vector<ForeignKernel> out;
  for (const auto& f : files) {
    const auto j = read_json_file<ojson>(f.string());
    const bool hand = j.is_object() && j.contains("file"), lift = j.is_object() && j.contains("kernel_name");
    const bool own = j.is_object() && j.contains("source") && !hand;
    if ((hand || lift) && op != "gemm")
      throw Error(fmt::format("{}: a GEMMbench entry, which is a gemm kernel: not one of op {}", f.string(), op));
    if (hand) {
      out.push_back(foreign_detail::gemmbench_entry(f.string(), j));
    } else if (lift) {
      out.push_back(foreign_detail::lift_entry(f.string(), j));
    } else if (own) {
      if (!j.contains("op") || j["op"] != op) {
        if (folder) continue;  // a folder may hold the kernels of several ops
        throw Error(fmt::format("{}: kernel metadata of op {}, not of op {}", f.string(),
                                j.contains("op") ? j["op"].dump() : "(none)", op));
      }
      out.push_back(foreign_detail::metadata_entry(f.string(), j));
    } else if (!folder) {  // in a folder, other JSON files are not entries
      throw Error(fmt::format("{}: not a kernel entry: expected key 'file' (a hand-written GEMMbench entry), "
                              "'kernel_name' (a Lift-generated one) or 'source' (hetbench kernel metadata)",
                              f.string()));
    }
  }
  if (out.empty()) throw Error(fmt::format("no kernel entry of op {} in '{}'", op, path));
  loaded[key] = out;
  return out;
}

}  // namespace hetbench
