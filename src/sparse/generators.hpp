// Synthetic sparse matrices named by a spec string: "gen:NAME:key=value,key=value".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparse/csr.hpp"

namespace hetbench {

// The same spec and seed give the same matrix. Unknown names or keys, missing keys and bad
// values throw hetbench::Error naming the spec and the key.
CsrMatrix generate_matrix(const std::string& spec, uint64_t seed);

struct GeneratorInfo {
  std::string name;         // "poisson3d"
  std::string usage;        // "gen:poisson3d:n=N"
  std::string description;  // one line, for `hetbench list`
};

std::vector<GeneratorInfo> generator_infos();
std::vector<std::string> generator_names();

}  // namespace hetbench
