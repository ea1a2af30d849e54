// hetbench's own kernel metadata given to --kernel (a kernel written for hetbench, or one
// `kernel import-t1` translated): the same as a GEMMbench entry for the experiment, which
// records the metadata, its source and the includes beside it (so that replay and store
// bundles carry them), but of any op, the metadata's, and in its precisions.
#include <filesystem>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "kernel/foreign/foreign.hpp"

namespace hetbench::foreign_detail {

namespace fs = std::filesystem;

ForeignKernel metadata_entry(const std::string& file, const nlohmann::ordered_json& j) {
  const fs::path dir = fs::path(file).parent_path();
  ForeignKernel e;
  e.format = "hetbench";
  e.path = file;
  e.files.push_back(file);
  // Copied flat into the experiment's kernels/: the source and any include beside the
  // metadata. Includes found only under the kernel root are part of hetbench itself.
  auto beside = [&](const std::string& name, const std::string& key) {
    if (fs::path(name).has_parent_path() && fs::exists(dir / name))
      bad(file, key, fmt::format("'{}' is in a subfolder: an entry's files sit beside it, so that an experiment's "
                                 "copy reads the same",
                                 name));
    if (fs::exists(dir / name)) e.files.push_back((dir / name).string());
  };
  if (j.contains("source") && j["source"].is_string()) beside(j["source"].get<std::string>(), "source");
  if (j.contains("includes") && j["includes"].is_array())
    for (std::size_t i = 0; i < j["includes"].size(); ++i)
      if (j["includes"][i].is_string()) beside(j["includes"][i].get<std::string>(), fmt::format("includes[{}]", i));
  e.variant = register_variant_json(j, dir.string(), file);
  e.precisions = e.variant->precisions;
  e.precision = e.precisions.front();
  return e;
}

}  // namespace hetbench::foreign_detail
