// Foreign kernels: entries of other benchmark collections, run unmodified. Each format
// is translated into kernel metadata (a registered variant) plus what a run of it needs:
// the precision and problem axes the entry fixes, its tunable local sizes and which
// problem sizes it can compute. Formats: GEMMbench's hand-written entries and its
// Lift-generated ones (src/kernel/foreign/gemmbench.cpp, lift.cpp), after Lokhmotov,
// "GEMMbench: a framework for reproducible and collaborative benchmarking of matrix
// multiplication".
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/precision.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

// The keys of an entry's description (ForeignKernel::about, --kernel-about).
inline const std::set<std::string> kAboutKeys{"author", "licence", "origin"};

struct ForeignKernel {
  std::string format;  // "GEMMbench", "Lift", "hetbench" (own metadata)
  std::string path;    // the entry file
  // Every file the entry is made of (the entry, its kernel source), as paths: recorded and
  // copied with an experiment so that replay needs nothing else (engine/record/kernel_files).
  std::vector<std::string> files;
  std::shared_ptr<Variant> variant;
  Precision precision = Precision::S;
  // Own metadata: every precision it offers (a run keeps those of its precisions that are
  // here); empty for entries that fix one (`precision`).
  std::vector<Precision> precisions;
  // The problem axes the entry fixes, as a size suffix appended to every size ("@NT").
  std::string suffix;
  // The parameters of its tunable local size, in dimension order (what --lws sets).
  std::vector<std::string> local_params;
  // Empty when the entry computes this problem correctly; otherwise why not.
  std::function<std::string(const Sizes&)> misfit;
  // Who wrote it, under which licence, where it comes from, as the entry states them
  // (GEMMbench entries may carry "author", "licence" and "origin", a hetbench addition);
  // an object of those keys, empty where the entry says nothing.
  nlohmann::json about = nlohmann::json::object();

  // The size tokens of a run of this entry: each with the entry's suffix (a token that
  // names other values for those axes is an error), every problem checked with misfit.
  std::vector<std::string> sizes(const std::vector<std::string>& tokens) const;
  // --lws values, one per local_params entry, as run parameters.
  std::map<std::string, std::string> local_size(const std::string& lws) const;
};

// One entry file, or every entry in a folder, for `op`: GEMMbench entries for gemm, and
// hetbench kernel metadata (docs/metadata-format.md) of `op`; throws Error naming the file
// and key on a malformed entry.
std::vector<ForeignKernel> load_foreign_kernels(const std::string& op, const std::string& path);

namespace foreign_detail {
[[noreturn]] void bad(const std::string& file, const std::string& key, const std::string& what);
// The translators: an entry's JSON (its format recognised) to a registered kernel.
ForeignKernel gemmbench_entry(const std::string& file, const nlohmann::ordered_json& j);
ForeignKernel lift_entry(const std::string& file, const nlohmann::ordered_json& j);
ForeignKernel metadata_entry(const std::string& file, const nlohmann::ordered_json& j);
// GEMMbench kernels multiply square matrices: "" or why the sizes are not square.
std::string square_misfit(const Sizes& s);
}  // namespace foreign_detail

}  // namespace hetbench
