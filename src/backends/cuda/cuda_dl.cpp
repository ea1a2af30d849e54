#include "backends/cuda/cuda_dl.hpp"

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench::cuda_dl {

namespace {

// The sonames of the toolkit the build was compiled against: a library of another major
// version has another ABI.
std::string soname(const char* fn) {
  if (std::strncmp(fn, "cublas", 6) == 0) return fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR);
  if (std::strncmp(fn, "cusparse", 8) == 0) return fmt::format("libcusparse.so.{}", CUSPARSE_VER_MAJOR);
  if (std::strncmp(fn, "nvrtc", 5) == 0) return fmt::format("libnvrtc.so.{}", CUDART_VERSION / 1000);
  throw Error(fmt::format("cuda_dl: no library known for '{}'", fn));
}

}  // namespace

void* symbol(const char* name) {
  static std::mutex m;
  const std::lock_guard<std::mutex> lock(m);
  const std::string lib = soname(name);
  // RTLD_NOW: a missing symbol shows here, with the library's name, not mid-run. The
  // handle is kept for the life of the process (dlopen counts references).
  void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw Error(fmt::format("{} could not be loaded (needed for {}): {}", lib, name, dlerror()));
  void* p = dlsym(h, name);
  if (!p) throw Error(fmt::format("{} has no symbol {}: {}", lib, name, dlerror()));
  return p;
}

}  // namespace hetbench::cuda_dl
