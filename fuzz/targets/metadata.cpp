// Kernel metadata JSON, as load_variant_metadata parses each file of a kernel folder.
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "targets/scratch_dir.hpp"
#include "targets/targets.hpp"
#include "util/json_file.hpp"

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
  try {
    // As load_variant_metadata reads a file: invalid JSON is an Error too.
    const auto j = parse_json_text<nlohmann::ordered_json>(std::string(data), "fuzz/meta.json");
    (void)parse_variant_json(j, kernel_folder(), "fuzz/meta.json");
  } catch (const Error&) {
  }
}

}  // namespace hetbench::fuzz
