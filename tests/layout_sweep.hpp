// Shared by the tests of ops over laid-out records (srad, mriq, seismic): every host and
// OpenCL variant validates at `sizes` without a layout (with each parameter at either end
// of its domain) and at `layout_sizes` in every layout shipped in layouts/<op>/ (at the
// defaults: every layout is a PoCL build of its own per parameter set, and the parameters
// do not change how fields are addressed); each layout is seen in the records (no layout
// named is "soa", as the shipped soa), and every record carries the time beside the kernel.
#pragma once

#include <filesystem>

#include "variant_sweep.hpp"

namespace hetbench::test {

inline std::vector<nlohmann::json> validate_every_layout(const std::string& op, const std::string& sizes,
                                                         const std::string& layout_sizes, std::size_t min_layouts) {
  std::vector<std::string> tokens;
  std::size_t layouts = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(data_dir("layouts")) / op)) {
    tokens.push_back(layout_sizes + "@" + e.path().stem().string());
    ++layouts;
  }
  EXPECT_GE(layouts, min_layouts);
  Sweep defaults;
  defaults.extremes = false;
  auto recs = validate_every_variant(op, tokens, defaults);
  for (auto& r : validate_every_variant(op, {sizes})) recs.push_back(std::move(r));
  std::set<std::string> seen;
  for (const auto& r : recs) {
    seen.insert(r["features"].value("layout", ""));
    EXPECT_TRUE(r["features"].contains("rest_s")) << describe(r);
  }
  EXPECT_EQ(seen.size(), layouts);
  EXPECT_GT(by_backend(recs)["host"], 0);
  return recs;
}

}  // namespace hetbench::test
