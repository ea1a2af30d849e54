// JIT build of CUDA kernels with NVRTC into a CUBIN for the device's own architecture,
// through the shared program cache (api/program_cache.hpp). Modules are loaded through the runtime's
// library API (cudaLibraryLoadData / cudaLibraryGetKernel), so libcuda is never linked.
#include <nvrtc.h>

#include <algorithm>
#include <map>
#include <filesystem>

#include <fmt/format.h>

#include "backends/cuda/cuda_dl.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "hetbench/error.hpp"

#ifndef HETBENCH_CUDA_INCLUDE
#define HETBENCH_CUDA_INCLUDE "/usr/local/cuda/include"
#endif

namespace hetbench {

namespace {

class CudaProgram final : public Program {
 public:
  CudaProgram(CudaDevice& dev, cudaLibrary_t lib, std::string path) : dev_(dev), lib_(lib), path_(std::move(path)) {}
  ~CudaProgram() override { cudaLibraryUnload(lib_); }

  void launch(const std::string& name, const std::vector<KernelArg>& args, const Dims& global,
              const Dims& local, std::size_t local_bytes) override {
    if (global.empty() || global.size() > 3)
      throw PointError(fmt::format("{}: kernel {}: expected 1 to 3 dimensions", path_, name));
    if (!local.empty() && local.size() != global.size())
      throw PointError(fmt::format("{}: kernel {}: global and local sizes have different dimensions", path_, name));
    for (auto g : global)
      if (g == 0) return;  // nothing to do
    // OpenCL-style sizes: global counts threads, local is the block.
    unsigned gd[3] = {1, 1, 1}, bd[3] = {1, 1, 1};
    for (std::size_t d = 0; d < global.size(); ++d) {
      std::size_t b = local.empty() ? (d == 0 ? std::min<std::size_t>(256, global[0]) : 1) : local[d];
      if (local.empty()) {
        gd[d] = static_cast<unsigned>((global[d] + b - 1) / b);  // the kernel checks bounds
      } else {
        if (global[d] % b != 0)
          throw PointError(fmt::format("{}: kernel {}: global size {} is not a multiple of the block size {}", path_,
                                       name, global[d], b));
        gd[d] = static_cast<unsigned>(global[d] / b);
      }
      bd[d] = static_cast<unsigned>(b);
    }
    std::vector<PackedArg> packed(args.size());
    std::vector<void*> ptrs(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
      packed[i] = pack(args[i]);
      ptrs[i] = packed[i].bytes.data();
    }
    cudaKernel_t k = kernel(name);
    dev_.activate();
    cudaError_t err = allow_dynamic_shared(name, k, local_bytes);
    if (err == cudaSuccess)
      err = cudaLaunchKernel(reinterpret_cast<const void*>(k), dim3(gd[0], gd[1], gd[2]), dim3(bd[0], bd[1], bd[2]),
                             ptrs.data(), local_bytes, dev_.stream());
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw PointError(fmt::format(
          "{}: launching kernel {} with grid {}x{}x{}, block {}x{}x{} and {} bytes of dynamic shared memory on {} "
          "failed with {} ({})",
          path_, name, gd[0], gd[1], gd[2], bd[0], bd[1], bd[2], local_bytes, dev_.id(), cudaGetErrorName(err),
          cudaGetErrorString(err)));
    }
  }

  void copy_to_symbol(const std::string& symbol, Buffer& src, std::size_t bytes) override {
    dev_.activate();
    void* dptr = nullptr;
    std::size_t size = 0;
    cudaError_t err = cudaLibraryGetGlobal(&dptr, &size, lib_, symbol.c_str());
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw BuildError(fmt::format("{}: no global named '{}' ({})", path_, symbol, cudaGetErrorName(err)));
    }
    if (bytes > size)
      throw PointError(fmt::format("{}: {} bytes do not fit the {} bytes of '{}'", path_, bytes, size, symbol));
    // On the device's stream, which the operand's upload used: a copy on the legacy
    // stream would not wait for it (the stream is non-blocking).
    err = cudaMemcpyAsync(dptr, src.native(), bytes, cudaMemcpyDeviceToDevice, dev_.stream());
    if (err == cudaSuccess) err = cudaStreamSynchronize(dev_.stream());
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw PointError(fmt::format("{}: copying {} bytes into '{}' on {} failed with {}", path_, bytes, symbol,
                                   dev_.id(), cudaGetErrorName(err)));
    }
  }

 private:
  CudaDevice& dev_;
  cudaLibrary_t lib_;
  std::string path_;
  std::map<std::string, cudaKernel_t> kernels_;
  std::map<std::string, std::size_t> dynamic_allowed_;  // bytes each kernel was allowed so far

  // A block may take more than 48 KiB of dynamic shared memory only after the kernel is
  // allowed it; the attribute is set once per kernel and size, off the timed path after
  // the first run. (cudaFuncSetAttribute takes a cudaKernel_t as the function.)
  cudaError_t allow_dynamic_shared(const std::string& name, cudaKernel_t k, std::size_t bytes) {
    if (bytes == 0) return cudaSuccess;
    std::size_t& allowed = dynamic_allowed_[name];
    if (bytes <= allowed) return cudaSuccess;
    cudaError_t err = cudaFuncSetAttribute(reinterpret_cast<const void*>(k), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes));
    if (err == cudaSuccess) allowed = bytes;
    return err;
  }

  cudaKernel_t kernel(const std::string& name) {
    if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
    cudaKernel_t k = nullptr;
    cudaError_t err = cudaLibraryGetKernel(&k, lib_, name.c_str());
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw BuildError(fmt::format("{}: no kernel named '{}' ({}; kernels must be extern \"C\" __global__)", path_,
                                   name, cudaGetErrorName(err)));
    }
    kernels_[name] = k;
    return k;
  }
};

#define HB_NVRTC(call, where)                                                                    \
  do {                                                                                           \
    nvrtcResult hb_r_ = (call);                                                                  \
    if (hb_r_ != NVRTC_SUCCESS)                                                                  \
      throw BuildError(fmt::format("{}: {} failed with {}", where, #call, HB_DL(nvrtcGetErrorString)(hb_r_))); \
  } while (0)

// Source to CUBIN; a compile error throws BuildError carrying the NVRTC log.
std::string compile_cubin(const ProgramSource& src, const std::vector<std::string>& opts, const std::string& dev_id) {
  nvrtcProgram prog = nullptr;
  HB_NVRTC(HB_DL(nvrtcCreateProgram)(&prog, src.text.c_str(), src.path.c_str(), 0, nullptr, nullptr), src.path);
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  nvrtcResult r = HB_DL(nvrtcCompileProgram)(prog, static_cast<int>(argv.size()), argv.data());
  std::size_t n = 0;
  std::string log;
  if (HB_DL(nvrtcGetProgramLogSize)(prog, &n) == NVRTC_SUCCESS && n > 1) {
    log.resize(n);
    HB_DL(nvrtcGetProgramLog)(prog, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  }
  if (r != NVRTC_SUCCESS) {
    HB_DL(nvrtcDestroyProgram)(&prog);
    std::string options;
    for (const auto& o : opts) options += (options.empty() ? "" : " ") + o;
    throw BuildError(fmt::format("kernel build failed: {} on {} with options '{}' ({}); build log:\n{}", src.path,
                                 dev_id, options, HB_DL(nvrtcGetErrorString)(r), log));
  }
  std::string cubin;
  if (HB_DL(nvrtcGetCUBINSize)(prog, &n) == NVRTC_SUCCESS && n > 0) {
    cubin.resize(n);
    if (HB_DL(nvrtcGetCUBIN)(prog, cubin.data()) != NVRTC_SUCCESS) cubin.clear();
  }
  HB_DL(nvrtcDestroyProgram)(&prog);
  if (cubin.empty()) throw BuildError(fmt::format("{}: NVRTC produced no CUBIN for {}", src.path, dev_id));
  return cubin;
}

cudaLibrary_t load_cubin(const std::string& cubin, cudaError_t* err_out = nullptr) {
  cudaLibrary_t lib = nullptr;
  cudaError_t err = cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (err_out) *err_out = err;
  if (err != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return lib;
}

}  // namespace

std::shared_ptr<Program> CudaDevice::build(const ProgramSource& src) {
  std::vector<std::string> opts{fmt::format("--gpu-architecture=sm_{}{}", cc_major_, cc_minor_), "-std=c++17"};
  if (std::filesystem::exists(HETBENCH_CUDA_INCLUDE)) opts.push_back("-I" HETBENCH_CUDA_INCLUDE);
  for (const auto& d : src.defines) opts.push_back("-D" + d);
  int nmaj = 0, nmin = 0;
  HB_DL(nvrtcVersion)(&nmaj, &nmin);
  std::string options;
  for (const auto& o : opts) {
    if (!options.empty()) options += '\n';
    options += o;
  }
  auto load = [&](const std::string& cubin) -> std::shared_ptr<Program> {
    activate();
    cudaLibrary_t lib = load_cubin(cubin);
    return lib ? std::make_shared<CudaProgram>(*this, lib, src.path) : nullptr;
  };
  auto compile = [&]() -> ProgramCache::Built {
    std::string cubin = compile_cubin(src, opts, info_.id);
    activate();
    cudaError_t err = cudaSuccess;
    cudaLibrary_t lib = load_cubin(cubin, &err);
    if (!lib) cuda_fail(err, "cudaLibraryLoadData", src.path + " on " + info_.id);
    return {std::make_shared<CudaProgram>(*this, lib, src.path), std::move(cubin)};
  };
  return programs_.get({info_.name, fmt::format("sm_{}{}", cc_major_, cc_minor_), info_.driver, info_.version,
                        fmt::format("nvrtc {}.{}", nmaj, nmin), options, src.text},
                       load, compile);
}

}  // namespace hetbench
