// JIT build of OpenCL programs through the shared program cache (api/program_cache.hpp).
#include <map>

#include <fmt/format.h>

#include "backends/opencl/cl_backend.hpp"
#include "backends/opencl/cl_check.hpp"
#include "api/program_cache.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

namespace {

class ClProgram final : public Program {
 public:
  ClProgram(ClDevice& dev, cl_program prog, std::string path) : dev_(dev), prog_(prog), path_(std::move(path)) {}
  ~ClProgram() override {
    for (auto& [n, k] : kernels_) clReleaseKernel(k);
    clReleaseProgram(prog_);
  }

  void launch(const std::string& name, const std::vector<KernelArg>& args, const Dims& global,
              const Dims& local, std::size_t local_bytes) override {
    cl_kernel k = kernel(name);
    for (std::size_t i = 0; i < args.size(); ++i) set_arg(k, name, static_cast<cl_uint>(i), args[i]);
    if (local_bytes > 0) {  // the trailing `local` pointer: a null value of that many bytes
      cl_int err = clSetKernelArg(k, static_cast<cl_uint>(args.size()), local_bytes, nullptr);
      if (err != CL_SUCCESS)
        throw PointError(fmt::format("{}: kernel {}: {} bytes of local memory as argument {} failed with {} (the "
                                     "kernel must end with a local pointer parameter)",
                                     path_, name, local_bytes, args.size(), cl_error_name(err)));
    }
    auto dims = static_cast<cl_uint>(global.size());
    if (!local.empty() && local.size() != global.size())
      throw PointError(fmt::format("{}: kernel {}: global and local sizes have different dimensions", path_, name));
    for (auto g : global)
      if (g == 0) return;  // nothing to do; OpenCL rejects empty ranges
    cl_int err = clEnqueueNDRangeKernel(dev_.queue(), k, dims, nullptr, global.data(),
                                        local.empty() ? nullptr : local.data(), 0, nullptr, dev_.event_slot());
    if (err != CL_SUCCESS) {
      auto dims_str = [](const Dims& d) {
        std::string s;
        for (auto v : d) s += (s.empty() ? "" : ",") + std::to_string(v);
        return s.empty() ? std::string("(driver's choice)") : s;
      };
      const char* hint = err == CL_INVALID_KERNEL_ARGS
                             ? " (an argument was never set: the kernel takes more than the metadata's args, and a "
                               "trailing local pointer needs \"local_bytes\")"
                             : "";
      throw PointError(fmt::format("{}: launching kernel {} with global {} and local {} on {} failed with {}{}", path_,
                                   name, dims_str(global), dims_str(local), dev_.id(), cl_error_name(err), hint));
    }
    dev_.take_slot();
  }

 private:
  ClDevice& dev_;
  cl_program prog_;
  std::string path_;
  std::map<std::string, cl_kernel> kernels_;

  cl_kernel kernel(const std::string& name) {
    auto it = kernels_.find(name);
    if (it != kernels_.end()) return it->second;
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(prog_, name.c_str(), &err);
    if (err != CL_SUCCESS)
      throw BuildError(fmt::format("{}: no kernel named '{}' ({})", path_, name, cl_error_name(err)));
    kernels_[name] = k;
    return k;
  }

  void set_arg(cl_kernel k, const std::string& kname, cl_uint i, const KernelArg& a) {
    const PackedArg p = pack(a);
    cl_int err = clSetKernelArg(k, i, p.size, p.data());
    if (err != CL_SUCCESS) {
      std::string hint = err == CL_INVALID_ARG_SIZE
                             ? " (the kernel declares another type: give the type in the metadata, e.g. \"n:ulong\")"
                         : err == CL_INVALID_ARG_INDEX ? " (the metadata lists more arguments than the kernel has)"
                                                       : "";
      throw PointError(fmt::format("{}: kernel {}: setting argument {} ('{}') failed with {}{}", path_, kname, i,
                                   a.name, cl_error_name(err), hint));
    }
  }
};

std::string build_log(cl_program p, cl_device_id d) {
  std::size_t n = 0;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  if (n) clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::shared_ptr<Program> ClDevice::build(const ProgramSource& src) {
  std::string options;
  for (const auto& d : src.defines) options += " -D " + d;
  auto load = [&](const std::string& blob) -> std::shared_ptr<Program> {
    const auto* bin = reinterpret_cast<const unsigned char*>(blob.data());
    std::size_t len = blob.size();
    cl_int err = CL_SUCCESS, status = CL_SUCCESS;
    cl_program prog = clCreateProgramWithBinary(ctx_, 1, &dev_, &len, &bin, &status, &err);
    if (err != CL_SUCCESS || status != CL_SUCCESS ||
        clBuildProgram(prog, 1, &dev_, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      if (prog) clReleaseProgram(prog);
      return nullptr;
    }
    return std::make_shared<ClProgram>(*this, prog, src.path);
  };
  auto compile = [&]() -> ProgramCache::Built {
    cl_int err = CL_SUCCESS;
    const char* text = src.text.c_str();
    cl_program prog = clCreateProgramWithSource(ctx_, 1, &text, nullptr, &err);
    if (err != CL_SUCCESS) cl_fail(err, "clCreateProgramWithSource", src.path);
    err = clBuildProgram(prog, 1, &dev_, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      auto log = build_log(prog, dev_);
      clReleaseProgram(prog);
      throw BuildError(fmt::format("kernel build failed: {} on {} with options '{}' ({}); build log:\n{}", src.path,
                                   info_.id, options, cl_error_name(err), log));
    }
    ProgramCache::Built b{std::make_shared<ClProgram>(*this, prog, src.path), ""};
    std::size_t len = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, nullptr) == CL_SUCCESS && len > 0) {
      b.binary.assign(len, '\0');
      auto* ptr = reinterpret_cast<unsigned char*>(b.binary.data());
      if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) b.binary.clear();
    }
    return b;
  };
  return programs_.get({info_.name, info_.driver, info_.version, info_.extra.value("platform_version", ""), options,
                        src.text},
                       load, compile);
}

}  // namespace hetbench
