// Kernel metadata JSON, as load_variant_metadata parses each file of a kernel folder.
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "targets/scratch_dir.hpp"
#include "targets/targets.hpp"

namespace hetbench::fuzz {

namespace {

// The files a metadata object may name ("source": "k.cl", "includes": ["inc.h"]).
const std::string& kernel_folder() {
  static const std::string dir = [] {
    auto d = scratch_dir() / "kernels";
    std::filesystem::create_directories(d);
    std::ofstream(d / "k.cl") << "__kernel void k(__global float* x) { x[0] = 1; }\n";
    std::ofstream(d / "k.cu") << "extern \"C\" __global__ void k(float* x) { x[0] = 1; }\n";
    std::ofstream(d / "inc.h") << "#define ONE 1\n";
    return d.string();
  }();
  return dir;
}

}  // namespace

void metadata(std::string_view data) {
  const auto j = nlohmann::ordered_json::parse(data.begin(), data.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return;  // read_json_file refuses it with Error
  try {
    (void)parse_variant_json(j, kernel_folder(), "fuzz/meta.json");
  } catch (const Error&) {
  }
}

}  // namespace hetbench::fuzz
