// GEMMbench's hand-written dataset entries: a JSON file with "name", "file", "type" (S
// or D), "transA"/"transB" (N or T), "di" and "dj", and an OpenCL kernel
// gemm(A, B, C, alpha, beta, n) over square row-major matrices of order n, launched over
// (n/dj, n/di) work-items with a tunable local size (LWS_J, LWS_I).
#include <filesystem>

#include <fmt/format.h>

#include "kernel/foreign/foreign.hpp"

namespace hetbench::foreign_detail {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

ForeignKernel gemmbench_entry(const std::string& file, const ojson& j) {
  // A misspelt "dI" would leave its coarsening unread and the launch wrong.
  // "author", "licence" and "origin" describe the entry (a hetbench addition to the format).
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "name" && it.key() != "file" && it.key() != "type" && it.key() != "transA" &&
        it.key() != "transB" && it.key() != "di" && it.key() != "dj" && !kAboutKeys.count(it.key()))
      bad(file, it.key(),
          "unknown key in a GEMMbench entry (name, file, type, transA, transB, di, dj; author, licence, origin)");
  auto str = [&](const char* k) {
    if (!j.contains(k)) bad(file, k, "missing");
    if (!j[k].is_string()) bad(file, k, "expected a string");
    return j[k].get<std::string>();
  };
  auto coarsening = [&](const char* k) {
    if (!j.contains(k)) bad(file, k, "missing");
    if (!j[k].is_number_integer() || j[k].get<long long>() < 1) bad(file, k, "expected a positive integer");
    return j[k].get<long long>();
  };
  ForeignKernel e;
  e.format = "GEMMbench";
  e.path = file;
  for (const auto& k : kAboutKeys)
    if (j.contains(k)) {
      if (!j[k].is_string() || j[k].get<std::string>().empty()) bad(file, k, "expected a non-empty string");
      e.about[k] = j[k].get<std::string>();
    }
  const std::string name = str("name"), source = str("file"), type = str("type");
  if (type != "S" && type != "D") bad(file, "type", fmt::format("'{}' is not S or D", type));
  e.precision = parse_precision(type);
  std::string layout;
  for (const char* k : {"transA", "transB"}) {
    auto t = str(k);
    if (t != "N" && t != "T") bad(file, k, fmt::format("'{}' is not N or T", t));
    layout += t;
  }
  e.suffix = "@" + layout;
  const long long di = coarsening("di"), dj = coarsening("dj");
  e.local_params = {"LWS_J", "LWS_I"};
  e.misfit = [di, dj](const Sizes& s) {
    if (auto why = square_misfit(s); !why.empty()) return why;
    const auto n = s.at("n");
    for (auto [what, d] : {std::pair{"di", di}, std::pair{"dj", dj}})
      if (n % d)
        return fmt::format("the entry computes {}={} elements per work-item: the order {} is not divisible by {}", what,
                           d, n, d);
    return std::string();
  };
  // The same launch GEMMbench makes, as hetbench metadata.
  const ojson meta = {
      {"name", name},
      {"op", "gemm"},
      {"description", fmt::format("GEMMbench entry {} ({} {}, {}x{} per work-item)", fs::path(file).filename().string(),
                                  type, layout, di, dj)},
      {"source", source},
      {"precisions", {type}},
      {"params",
       {{"LWS_J", {{"values", {1, 2, 4, 8, 16, 32, 64, 128, 256}}, {"default", 8}, {"doc", "local size, dimension 0"}}},
        {"LWS_I", {{"values", {1, 2, 4, 8, 16, 32, 64, 128, 256}}, {"default", 8}, {"doc", "local size, dimension 1"}}}}},
      {"constraints",
       {"LWS_J * LWS_I <= max_wg", fmt::format("(n / {}) % LWS_J == 0", dj), fmt::format("(n / {}) % LWS_I == 0", di)}},
      {"entry", "gemm"},
      {"args", {"A", "B", "C", "alpha", "beta", "n"}},
      {"global", {fmt::format("n / {}", dj), fmt::format("n / {}", di)}},
      {"local", {"LWS_J", "LWS_I"}}};
  e.variant = register_variant_json(meta, fs::path(file).parent_path().string(), file);
  e.files = {file, (fs::path(file).parent_path() / source).string()};
  return e;
}

}  // namespace hetbench::foreign_detail
