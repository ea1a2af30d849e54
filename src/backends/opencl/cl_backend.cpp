#include "backends/opencl/cl_backend.hpp"

#include <CL/cl_ext.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "backends/opencl/cl_check.hpp"
#include "backends/nvidia/nvidia_arch.hpp"
#include "backends/nvidia/pcie_link.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

const char* cl_error_name(cl_int e) {
  switch (e) {
#define C(x) case x: return #x;
    C(CL_DEVICE_NOT_FOUND) C(CL_DEVICE_NOT_AVAILABLE) C(CL_COMPILER_NOT_AVAILABLE)
    C(CL_MEM_OBJECT_ALLOCATION_FAILURE) C(CL_OUT_OF_RESOURCES) C(CL_OUT_OF_HOST_MEMORY)
    C(CL_PROFILING_INFO_NOT_AVAILABLE) C(CL_BUILD_PROGRAM_FAILURE) C(CL_INVALID_VALUE)
    C(CL_INVALID_DEVICE) C(CL_INVALID_CONTEXT) C(CL_INVALID_COMMAND_QUEUE) C(CL_INVALID_MEM_OBJECT)
    C(CL_INVALID_BINARY) C(CL_INVALID_BUILD_OPTIONS) C(CL_INVALID_PROGRAM) C(CL_INVALID_KERNEL_NAME)
    C(CL_INVALID_KERNEL) C(CL_INVALID_ARG_INDEX) C(CL_INVALID_ARG_VALUE) C(CL_INVALID_ARG_SIZE)
    C(CL_INVALID_KERNEL_ARGS) C(CL_INVALID_WORK_DIMENSION) C(CL_INVALID_WORK_GROUP_SIZE)
    C(CL_INVALID_WORK_ITEM_SIZE) C(CL_INVALID_GLOBAL_OFFSET) C(CL_INVALID_EVENT)
    C(CL_INVALID_BUFFER_SIZE) C(CL_INVALID_GLOBAL_WORK_SIZE) C(CL_PLATFORM_NOT_FOUND_KHR)
    C(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) C(CL_INVALID_PLATFORM) C(CL_INVALID_OPERATION)
#undef C
    default: return "unknown OpenCL error";
  }
}

void cl_fail(cl_int err, const char* call, const std::string& where) {
  std::string fn(call);
  fn = fn.substr(0, fn.find('('));
  auto msg = fmt::format("{}: {} failed with {} ({})", where, fn, cl_error_name(err), err);
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
      err == CL_INVALID_BUFFER_SIZE)
    msg += ": the device is out of memory or resources";
  throw PointError(msg);
}

namespace {

template <class T>
T dev_info(cl_device_id d, cl_device_info what) {
  T v{};
  clGetDeviceInfo(d, what, sizeof(T), &v, nullptr);
  return v;
}

std::string dev_string(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

}  // namespace

ClDevice::ClDevice(cl_platform_id p, cl_device_id d, int pi, int di) : dev_(d) {
  auto where = fmt::format("opencl:{}:{}", pi, di);
  cl_int err = CL_SUCCESS;
  ctx_ = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) cl_fail(err, "clCreateContext", where);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  queue_ = clCreateCommandQueueWithProperties(ctx_, d, props, &err);
  if (err != CL_SUCCESS) cl_fail(err, "clCreateCommandQueueWithProperties", where);

  DeviceInfo& i = info_;
  i.id = where;
  i.backend = BackendKind::OpenCL;
  i.name = dev_string(d, CL_DEVICE_NAME);
  i.vendor = dev_string(d, CL_DEVICE_VENDOR);
  i.driver = dev_string(d, CL_DRIVER_VERSION);
  i.version = dev_string(d, CL_DEVICE_VERSION);
  auto type = dev_info<cl_device_type>(d, CL_DEVICE_TYPE);
  i.type = (type & CL_DEVICE_TYPE_GPU) ? "gpu" : (type & CL_DEVICE_TYPE_CPU) ? "cpu" : "accelerator";
  i.compute_units = static_cast<int>(dev_info<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS));
  i.max_clock_mhz = static_cast<int>(dev_info<cl_uint>(d, CL_DEVICE_MAX_CLOCK_FREQUENCY));
  i.global_mem = dev_info<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  i.max_alloc = dev_info<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  i.local_mem = dev_info<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
  i.local_mem_launch = i.local_mem;
  i.constant_mem = dev_info<cl_ulong>(d, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
  i.llc_bytes = dev_info<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
  i.max_wg = dev_info<std::size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  i.fp64 = dev_info<cl_device_fp_config>(d, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  std::string ext = dev_string(d, CL_DEVICE_EXTENSIONS);
  for (std::size_t s = 0; s < ext.size();) {
    auto e = ext.find(' ', s);
    if (e == std::string::npos) e = ext.size();
    if (e > s) i.extensions.push_back(ext.substr(s, e - s));
    s = e + 1;
  }
  i.extra["platform"] = platform_string(p, CL_PLATFORM_NAME);
  i.extra["platform_version"] = platform_string(p, CL_PLATFORM_VERSION);
  i.extra["opencl_c_version"] = dev_string(d, CL_DEVICE_OPENCL_C_VERSION);
  i.extra["native_vector_width_float"] = dev_info<cl_uint>(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT);
  i.extra["native_vector_width_double"] = dev_info<cl_uint>(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE);
  i.extra["max_sub_groups"] = dev_info<cl_uint>(d, CL_DEVICE_MAX_NUM_SUB_GROUPS);

  // The preferred multiple is a kernel property; a trivial kernel tells the device's.
  const char* probe = "kernel void hb_probe(global int* x) { x[get_global_id(0)] = 0; }";
  cl_program prog = clCreateProgramWithSource(ctx_, 1, &probe, nullptr, &err);
  if (err == CL_SUCCESS && clBuildProgram(prog, 1, &d, "", nullptr, nullptr) == CL_SUCCESS) {
    cl_kernel k = clCreateKernel(prog, "hb_probe", &err);
    if (err == CL_SUCCESS) {
      clGetKernelWorkGroupInfo(k, d, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof(std::size_t),
                               &i.pref_wg_multiple, nullptr);
      clReleaseKernel(k);
    }
  }
  if (prog) clReleaseProgram(prog);

  if (i.has_extension("cl_nv_device_attribute_query")) {
    auto major = dev_info<cl_uint>(d, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV);
    auto minor = dev_info<cl_uint>(d, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV);
    i.extra["compute_capability"] = fmt::format("{}.{}", major, minor);
    i.extra["architecture"] = nvidia_arch_name(static_cast<int>(major), static_cast<int>(minor));
    // PCI address, so that NVML (energy) finds the same board; values from cl_ext_nv.
    for (auto [key, what] : {std::pair{"pci_bus_id_nv", 0x4008u}, std::pair{"pci_slot_id_nv", 0x4009u},
                             std::pair{"pci_domain_id_nv", 0x400Au}}) {
      cl_int v = 0;
      if (clGetDeviceInfo(d, what, sizeof v, &v, nullptr) == CL_SUCCESS) i.extra[key] = v;
    }
    auto [f32, f64] = nvidia_sm_lanes(static_cast<int>(major), static_cast<int>(minor));
    if (f32 > 0 && i.max_clock_mhz > 0) {
      double ghz = i.max_clock_mhz * 1e-3;
      i.peak_gflops_s = i.compute_units * f32 * 2.0 * ghz;
      i.peak_gflops_d = i.compute_units * f64 * 2.0 * ghz;
      i.peak_note = fmt::format("{} SMs x {}/{} FP32/FP64 lanes (sm_{}{}) x 2 (FMA) x {} MHz", i.compute_units, f32,
                                f64, major, minor, i.max_clock_mhz);
    }
    add_pcie_link(i);
  }
}

ClDevice::~ClDevice() {
  programs_.clear();
  if (side_) clReleaseCommandQueue(side_);
  if (queue_) clReleaseCommandQueue(queue_);
  if (ctx_) clReleaseContext(ctx_);
}

std::unique_ptr<Buffer> ClDevice::alloc(std::size_t bytes) {
  if (bytes > info_.max_alloc)
    throw PointError(fmt::format("{}: a buffer of {} bytes exceeds the device's largest allocation of {} bytes",
                                 info_.id, bytes, info_.max_alloc));
  return std::make_unique<ClBuffer>(*this, bytes);
}

void ClDevice::finish() {
  if (side_) HB_CL(clFinish(side_), info_.id);
  HB_CL(clFinish(queue_), info_.id);
}

cl_command_queue ClDevice::lane(int lane, cl_event* after) {
  *after = nullptr;
  if (lane == 0) return queue_;
  if (!side_) {
    cl_int err = CL_SUCCESS;
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    side_ = clCreateCommandQueueWithProperties(ctx_, dev_, props, &err);
    if (err != CL_SUCCESS) cl_fail(err, "clCreateCommandQueueWithProperties", info_.id);
  }
  // The side lane starts after what the main queue holds so far.
  HB_CL(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, after), info_.id);
  return side_;
}

void ClDevice::issued(int lane, cl_event after, cl_event ev) {
  if (after) clReleaseEvent(after);
  if (lane != 0) HB_CL(clFlush(side_), info_.id);
  record(ev);
}

namespace {

// Pinned memory the way NVIDIA's OpenCL gives it (its oclBandwidthTest): a buffer
// allocated by the driver in host memory (CL_MEM_ALLOC_HOST_PTR), mapped once; reads
// and writes from its mapped pointer then go by DMA.
class ClHostMemory final : public HostMemory {
 public:
  ClHostMemory(ClDevice& dev, std::size_t bytes, HostMemoryKind kind) : HostMemory(bytes), dev_(dev) {
    const std::size_t n = bytes == 0 ? 1 : bytes;
    if (kind == HostMemoryKind::Pageable) {
      data_ = std::malloc(n);
      if (!data_) throw PointError(fmt::format("{}: out of host memory allocating {} bytes", dev.id(), bytes));
      return;
    }
    cl_int err = CL_SUCCESS;
    mem_ = clCreateBuffer(dev.context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, nullptr, &err);
    if (err != CL_SUCCESS) cl_fail(err, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", dev.id());
    data_ = clEnqueueMapBuffer(dev.queue(), mem_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      clReleaseMemObject(mem_);
      cl_fail(err, "clEnqueueMapBuffer", dev.id());
    }
  }
  ~ClHostMemory() override {
    if (!mem_) {
      std::free(data_);
      return;
    }
    clEnqueueUnmapMemObject(dev_.queue(), mem_, data_, 0, nullptr, nullptr);
    clFinish(dev_.queue());
    clReleaseMemObject(mem_);
  }

 private:
  ClDevice& dev_;
  cl_mem mem_ = nullptr;
};

}  // namespace

std::unique_ptr<HostMemory> ClDevice::alloc_host(std::size_t bytes, HostMemoryKind kind) {
  return std::make_unique<ClHostMemory>(*this, bytes, kind);
}

void ClDevice::copy_to_device(Buffer& dst, const void* src, std::size_t bytes, int lane_no) {
  transfer(dst, const_cast<void*>(src), bytes, lane_no, true);
}

void ClDevice::copy_to_host(void* dst, Buffer& src, std::size_t bytes, int lane_no) {
  transfer(src, dst, bytes, lane_no, false);
}

void ClDevice::transfer(Buffer& buf, void* host, std::size_t bytes, int lane_no, bool to_device) {
  cl_event after = nullptr, ev = nullptr;
  cl_command_queue q = lane(lane_no, &after);
  const cl_mem mem = dynamic_cast<ClBuffer&>(buf).mem();
  const cl_uint waits = after ? 1 : 0;
  const cl_int err = to_device ? clEnqueueWriteBuffer(q, mem, CL_FALSE, 0, bytes, host, waits, after ? &after : nullptr, &ev)
                               : clEnqueueReadBuffer(q, mem, CL_FALSE, 0, bytes, host, waits, after ? &after : nullptr, &ev);
  if (err != CL_SUCCESS) {
    if (after) clReleaseEvent(after);
    cl_fail(err, to_device ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", info_.id);
  }
  issued(lane_no, after, ev);
}

cl_event* ClDevice::event_slot() { return recording_ ? &slot_ : nullptr; }

void ClDevice::take_slot() {
  if (recording_ && slot_) recording_->push_back(slot_);
  slot_ = nullptr;
}

void ClDevice::record(cl_event ev) {
  if (recording_) recording_->push_back(ev);
  else clReleaseEvent(ev);
}

double ClDevice::time(const std::function<void()>& work) {
  finish();
  std::vector<cl_event> events;
  recording_ = &events;
  auto t0 = std::chrono::steady_clock::now();
  try {
    work();
    finish();
  } catch (...) {
    recording_ = nullptr;
    for (auto e : events) clReleaseEvent(e);
    throw;
  }
  auto t1 = std::chrono::steady_clock::now();
  recording_ = nullptr;
  double seconds = std::chrono::duration<double>(t1 - t0).count();
  if (!events.empty()) {
    cl_ulong start = ~0ull, end = 0;
    bool ok = true;
    for (auto e : events) {
      cl_ulong s = 0, f = 0;
      ok &= clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof s, &s, nullptr) == CL_SUCCESS;
      ok &= clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof f, &f, nullptr) == CL_SUCCESS;
      start = std::min(start, s);
      end = std::max(end, f);
    }
    if (ok && end >= start) seconds = static_cast<double>(end - start) * 1e-9;
  }
  for (auto e : events) clReleaseEvent(e);
  return seconds;
}

ClBuffer::ClBuffer(ClDevice& dev, std::size_t bytes) : Buffer(bytes), dev_(dev) {
  cl_int err = CL_SUCCESS;
  mem_ = clCreateBuffer(dev.context(), CL_MEM_READ_WRITE, bytes == 0 ? 1 : bytes, nullptr, &err);
  if (err != CL_SUCCESS) cl_fail(err, "clCreateBuffer", dev.id());
  // Drivers allocate lazily; touching the buffer turns a late out-of-memory into an early one.
  poison();
  dev.finish();
}

ClBuffer::~ClBuffer() {
  if (mem_) clReleaseMemObject(mem_);
}

void ClBuffer::upload(const void* src) {
  if (!bytes_) return;
  HB_CL(clEnqueueWriteBuffer(dev_.queue(), mem_, CL_TRUE, 0, bytes_, src, 0, nullptr, dev_.event_slot()),
        dev_.id());
  dev_.take_slot();
}

void ClBuffer::download(void* dst) {
  if (!bytes_) return;
  HB_CL(clEnqueueReadBuffer(dev_.queue(), mem_, CL_TRUE, 0, bytes_, dst, 0, nullptr, dev_.event_slot()),
        dev_.id());
  dev_.take_slot();
}

void ClBuffer::fill(unsigned char byte) {
  if (!bytes_) return;
  // The widest pattern that divides the size: byte-wide fills are slow on some drivers.
  cl_uchar pattern[16];
  std::memset(pattern, byte, sizeof pattern);
  std::size_t width = 16;
  while (bytes_ % width) width /= 2;
  HB_CL(clEnqueueFillBuffer(dev_.queue(), mem_, pattern, width, 0, bytes_, 0, nullptr, nullptr), dev_.id());
}

void ClBuffer::copy_from(Buffer& src) {
  auto& s = dynamic_cast<ClBuffer&>(src);
  if (!bytes_) return;
  // Its event is timed like a kernel's (transfer's d2d, the solvers' copies).
  HB_CL(clEnqueueCopyBuffer(dev_.queue(), s.mem(), mem_, 0, 0, std::min(bytes_, s.bytes()), 0, nullptr,
                            dev_.event_slot()),
        dev_.id());
  dev_.take_slot();
}

namespace {

class ClBackend final : public ScanningBackend {
 public:
  BackendKind kind() const override { return BackendKind::OpenCL; }

 private:
  void scan() override {
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &np);
    if (err != CL_SUCCESS || np == 0) {
      reason_ = fmt::format("OpenCL unavailable: no platform found ({}); install an ICD such as pocl-opencl-icd",
                            cl_error_name(err));
      return;
    }
    std::vector<cl_platform_id> ps(np);
    clGetPlatformIDs(np, ps.data(), nullptr);
    for (cl_uint pi = 0; pi < np; ++pi) {
      cl_uint nd = 0;
      if (clGetDeviceIDs(ps[pi], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS) continue;
      std::vector<cl_device_id> ds(nd);
      clGetDeviceIDs(ps[pi], CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
      for (cl_uint di = 0; di < nd; ++di) {
        try {
          devices_.push_back(std::make_shared<ClDevice>(ps[pi], ds[di], static_cast<int>(pi), static_cast<int>(di)));
        } catch (const Error& e) {
          fmt::print(stderr, "hetbench: warning: skipping opencl:{}:{}: {}\n", pi, di, e.what());
        }
      }
    }
    if (devices_.empty()) reason_ = "OpenCL unavailable: no usable device on any platform";
  }
};

const BackendRegistrar registrar(BackendKind::OpenCL, [] { return std::make_shared<ClBackend>(); });

}  // namespace

}  // namespace hetbench
