// GEMMbench dataset entries (seed 004), run unmodified: a JSON file with "name", "file",
// "type" (S or D), "transA"/"transB" (N or T), "di" and "dj", and an OpenCL kernel
// gemm(A, B, C, alpha, beta, n) over square row-major matrices of order n, launched over
// (n/dj, n/di) work-items with a tunable local size (LWS_J, LWS_I).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hetbench/precision.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

struct GemmbenchEntry {
  std::string path;
  std::string layout;  // "NN", "NT", "TN" or "TT"
  Precision type = Precision::S;
  long long di = 1, dj = 1;
  std::shared_ptr<Variant> variant;  // registered as opencl/gemm/<name>
};

// One entry file, or every entry in a folder (files with a "file" key). Throws Error
// naming the file and key on a malformed entry.
std::vector<GemmbenchEntry> load_gemmbench(const std::string& path);

// Size tokens for an entry: the entry's layout is appended (a token naming another
// layout is an error) and every order must be divisible by di and dj.
std::vector<std::string> gemmbench_sizes(const GemmbenchEntry& e, const std::vector<std::string>& tokens);

}  // namespace hetbench
