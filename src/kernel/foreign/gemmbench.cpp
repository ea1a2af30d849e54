#include "kernel/gemmbench.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/op.hpp"

namespace hetbench {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

[[noreturn]] void bad(const fs::path& p, const std::string& key, const std::string& what) {
  throw Error(fmt::format("{}: key '{}': {}", p.string(), key, what));
}

ojson read_entry(const fs::path& p) {
  std::ifstream f(p);
  if (!f) throw Error(fmt::format("cannot read GEMMbench entry '{}'", p.string()));
  try {
    return ojson::parse(f);
  } catch (const ojson::parse_error& e) {
    std::string w = e.what();
    auto at = w.find("] ");
    throw Error(fmt::format("{}: invalid JSON: {}", p.string(), at == std::string::npos ? w : w.substr(at + 2)));
  }
}

GemmbenchEntry translate(const fs::path& p, const ojson& j) {
  if (!j.is_object()) throw Error(fmt::format("{}: expected a JSON object", p.string()));
  auto str = [&](const char* k) {
    if (!j.contains(k)) bad(p, k, "missing");
    if (!j[k].is_string()) bad(p, k, "expected a string");
    return j[k].get<std::string>();
  };
  auto coarsening = [&](const char* k) {
    if (!j.contains(k)) bad(p, k, "missing");
    if (!j[k].is_number_integer() || j[k].get<long long>() < 1) bad(p, k, "expected a positive integer");
    return j[k].get<long long>();
  };
  GemmbenchEntry e;
  e.path = p.string();
  const std::string name = str("name"), file = str("file"), type = str("type");
  if (type != "S" && type != "D") bad(p, "type", fmt::format("'{}' is not S or D", type));
  e.type = parse_precision(type);
  for (const char* k : {"transA", "transB"}) {
    auto t = str(k);
    if (t != "N" && t != "T") bad(p, k, fmt::format("'{}' is not N or T", t));
    e.layout += t;
  }
  e.di = coarsening("di");
  e.dj = coarsening("dj");
  // The same launch GEMMbench makes, as hetbench metadata.
  ojson meta = {
      {"name", name},
      {"op", "gemm"},
      {"description", fmt::format("GEMMbench entry {} ({} {}, {}x{} per work-item)", p.filename().string(), type,
                                  e.layout, e.di, e.dj)},
      {"source", file},
      {"precisions", {type}},
      {"params",
       {{"LWS_J", {{"values", {1, 2, 4, 8, 16, 32, 64, 128, 256}}, {"default", 8}, {"doc", "local size, dimension 0"}}},
        {"LWS_I", {{"values", {1, 2, 4, 8, 16, 32, 64, 128, 256}}, {"default", 8}, {"doc", "local size, dimension 1"}}}}},
      {"constraints",
       {"LWS_J * LWS_I <= max_wg", fmt::format("(n / {}) % LWS_J == 0", e.dj), fmt::format("(n / {}) % LWS_I == 0", e.di)}},
      {"entry", "gemm"},
      {"args", {"A", "B", "C", "alpha", "beta", "n"}},
      {"global", {fmt::format("n / {}", e.dj), fmt::format("n / {}", e.di)}},
      {"local", {"LWS_J", "LWS_I"}}};
  e.variant = register_variant_json(meta, p.parent_path().string(), p.string());
  return e;
}

}  // namespace

std::vector<GemmbenchEntry> load_gemmbench(const std::string& path) {
  fs::path p(path);
  if (!fs::exists(p)) throw Error(fmt::format("GEMMbench entry '{}' does not exist", path));
  std::vector<fs::path> files;
  if (fs::is_directory(p)) {
    for (const auto& f : fs::directory_iterator(p))
      if (f.path().extension() == ".json") files.push_back(f.path());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(p);
  }
  std::vector<GemmbenchEntry> out;
  for (const auto& f : files) {
    auto j = read_entry(f);
    if (fs::is_directory(p) && !(j.is_object() && j.contains("file"))) continue;  // not an entry
    out.push_back(translate(f, j));
  }
  if (out.empty()) throw Error(fmt::format("no GEMMbench entry in '{}'", path));
  return out;
}

std::vector<std::string> gemmbench_sizes(const GemmbenchEntry& e, const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  const Op& gemm = find_op("gemm");
  for (const auto& tok : tokens) {
    std::string t = tok;
    if (auto at = t.find('@'); at != std::string::npos) {
      if (t.substr(at + 1) != e.layout)
        throw Error(fmt::format("size '{}' asks for layout {}, but GEMMbench entry {} is {}", tok, t.substr(at + 1),
                                e.path, e.layout));
    } else {
      t += "@" + e.layout;
    }
    for (const auto& s : gemm.parse_sizes(t)) {
      const auto m = s.at("m"), n = s.at("n"), k = s.at("k");
      if (m != n || n != k)
        throw Error(fmt::format("GEMMbench entry {} multiplies square matrices: size '{}' is {}x{}x{}", e.path, tok, m,
                                n, k));
      for (auto [what, d] : {std::pair{"di", e.di}, std::pair{"dj", e.dj}})
        if (n % d)
          throw Error(fmt::format("GEMMbench entry {} computes {}={} elements per work-item: the order {} is not "
                                  "divisible by {}",
                                  e.path, what, d, n, d));
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace hetbench
