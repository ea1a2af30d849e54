// Devices, buffers and JIT programs: the interface every backend implements.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench {

// Which API drives a device, and so which kernel sources it can JIT. A string only in
// JSON and messages.
enum class BackendKind { Host, OpenCL, Cuda };
inline constexpr BackendKind kBackendKinds[] = {BackendKind::Host, BackendKind::OpenCL, BackendKind::Cuda};
std::string to_string(BackendKind b);  // "host", "opencl", "cuda"
std::optional<BackendKind> parse_backend(std::string_view s);
template <class Json>
void to_json(Json& j, BackendKind b) {
  j = to_string(b);
}

struct DeviceInfo {
  std::string id;  // "host", "opencl:P:D", "cuda:N"
  BackendKind backend = BackendKind::Host;
  std::string name, vendor, driver, version;
  std::string type;  // "cpu", "gpu", "accelerator"
  int compute_units = 0;
  int max_clock_mhz = 0;
  std::uint64_t global_mem = 0, max_alloc = 0, local_mem = 0;
  // Local memory a work-group may take when its launch asks for it ("local_bytes" in the
  // metadata): CUDA's opt-in shared memory per block (227 KiB on Hopper, where static
  // shared memory stops at 48 KiB); OpenCL's local memory size.
  std::uint64_t local_mem_launch = 0;
  std::uint64_t llc_bytes = 0;  // last-level cache (what --cache cold flushes); 0 where unknown
  // Constant memory a kernel may read (CUDA's totalConstMem, OpenCL's largest constant
  // buffer); 0 on the host.
  std::uint64_t constant_mem = 0;
  std::size_t max_wg = 0, pref_wg_multiple = 0;
  bool fp64 = false;
  // Other devices of the same backend this one copies to directly (device-to-device
  // transfers); the expression variable `peers`.
  int peers = 0;
  std::vector<std::string> extensions;
  // Theoretical peaks; empty where they cannot be derived (shown as "unknown").
  std::optional<double> peak_gflops_s, peak_gflops_d, peak_gbs;
  std::string peak_note;  // how the peaks were derived
  nlohmann::json extra = nlohmann::json::object();  // backend-specific details

  bool has_extension(const std::string& e) const;
};
nlohmann::json to_json(const DeviceInfo& d);

class Buffer {
 public:
  virtual ~Buffer() = default;
  std::size_t bytes() const { return bytes_; }
  virtual void upload(const void* src) = 0;
  virtual void download(void* dst) = 0;
  // Every byte `byte`, queued on the device like a kernel (no host buffer, no transfer:
  // zeroing a solver's vectors by upload cost more than its first hundred iterations).
  virtual void fill(unsigned char byte) = 0;
  // Every byte 0xFF: NaN for floating point, -1 for integers; a kernel that leaves an
  // element unwritten is caught by validation.
  void poison() { fill(0xFF); }
  virtual void copy_from(Buffer& src) = 0;
  // What a kernel or library call is given for this buffer: the cl_mem on OpenCL, the
  // device pointer on CUDA, the data pointer on the host.
  virtual void* native() const = 0;

 protected:
  explicit Buffer(std::size_t bytes) : bytes_(bytes) {}
  std::size_t bytes_;
};

// Host memory for the host link (op transfer): pageable comes from the allocator, so
// the driver stages it through a pinned bounce buffer; pinned is page-locked, so the
// device's DMA engine reads and writes it directly.
enum class HostMemoryKind { Pageable, Pinned };

class HostMemory {
 public:
  virtual ~HostMemory() = default;
  std::size_t bytes() const { return bytes_; }
  void* data() const { return data_; }

 protected:
  explicit HostMemory(std::size_t bytes) : bytes_(bytes) {}
  std::size_t bytes_;
  void* data_ = nullptr;
};

// One kernel argument as passed to a launch.
struct KernelArg {
  enum Kind { Buf, I32, U32, I64, U64, F32, F64 } kind;
  Buffer* buf = nullptr;
  std::int64_t i = 0;
  double f = 0;
  std::string name;  // for error messages
};

// A kernel argument as the API takes it: `size` bytes of the value the kernel declares.
struct PackedArg {
  std::size_t size = 0;
  alignas(8) std::array<unsigned char, 8> bytes{};
  const void* data() const { return bytes.data(); }
};
PackedArg pack(const KernelArg& a);

using Dims = std::vector<std::size_t>;  // 1 to 3 entries

// What one buffer or one launch may ask of a device, checked before a driver sees it: a
// driver handed 2^62 work-items, or a byte count that wrapped around, aborts the whole
// process (PoCL) instead of failing one point. Each returns empty, or the reason.
// A launch: 1 to 3 dimensions of 0 (nothing to run) to kMaxLaunchDim work-items each, kMaxLaunchItems in
// all (CUDA's largest grid holds 2^31-1 blocks of 1024 in x; every OpenCL we run takes
// 2^32-1 in a dimension), local sizes of at least 1 within the device's work-group limit.
inline constexpr std::uint64_t kMaxLaunchDim = (1ull << 32) - 1, kMaxLaunchItems = 1ull << 40;
// What 64-bit signed sizes reach: a byte count past it would wrap around in the size
// arithmetic that builds a problem, on any device, whatever memory it says it has.
inline constexpr double kAddressableBytes = 0x1p63;
std::string launch_misfit(const DeviceInfo& d, const Dims& global, const Dims& local);
// One dimension of a launch (a real number, as an expression gives it): a whole number
// from 1 (0 too where `empty_ok`: an empty launch) to kMaxLaunchDim. The rule both for
// launch_misfit and for the constant sizes a metadata file states.
std::string launch_dim_misfit(double v, bool empty_ok);
// A buffer: at most the device's largest allocation (kAddressableBytes where it does not say).
// `bytes` is a real number so that the caller's count × element size cannot wrap around.
std::string buffer_misfit(const DeviceInfo& d, double bytes);

// A JIT-built program with one or more kernels.
class Program {
 public:
  virtual ~Program() = default;
  // `local_bytes` > 0 gives the work-group that many bytes of local memory sized at launch:
  // CUDA's dynamic shared memory (extern __shared__), or on OpenCL one more `local` pointer
  // argument after `args`.
  virtual void launch(const std::string& kernel, const std::vector<KernelArg>& args, const Dims& global,
                      const Dims& local, std::size_t local_bytes) = 0;
  // Copies `bytes` of `src` into the program's global variable `symbol` and waits: CUDA's
  // __constant__ memory, which kernels read but no kernel argument points into. Backends
  // without module globals (OpenCL passes constant memory as an argument) refuse.
  virtual void copy_to_symbol(const std::string& symbol, Buffer& src, std::size_t bytes);
};

struct ProgramSource {
  std::string path;  // for messages
  std::string text;  // full source, prelude included
  std::vector<std::string> defines;  // "NAME=VALUE"
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;
  const std::string& id() const { return info().id; }
  virtual std::unique_ptr<Buffer> alloc(std::size_t bytes) = 0;
  virtual void finish() = 0;
  // Runs `work` once and returns its duration in seconds, measured with the device's own
  // timer (OpenCL profiling events, CUDA events, steady_clock on the host) from the
  // start of the first command `work` issues to the end of the last.
  virtual double time(const std::function<void()>& work) = 0;
  // Which kernel sources the device can JIT.
  BackendKind kernel_language() const { return info().backend; }
  virtual std::shared_ptr<Program> build(const ProgramSource& src);

  // The host link. Copies are issued asynchronously, so that time() covers exactly them:
  // lane 0 is the device's own queue or stream; lane 1 a second one, whose copy starts
  // after the work issued before it and runs beside the work issued after it (both
  // directions at once); finish() and time() wait for both lanes. The host device has
  // no host link: these throw PointError saying so.
  virtual std::unique_ptr<HostMemory> alloc_host(std::size_t bytes, HostMemoryKind kind);
  virtual void copy_to_device(Buffer& dst, const void* src, std::size_t bytes, int lane);
  virtual void copy_to_host(void* dst, Buffer& src, std::size_t bytes, int lane);
  // Buffer to buffer between two devices of this backend (peer to peer), on this
  // device's queue.
  virtual void copy_peer(Buffer& dst, Device& dst_dev, Buffer& src, std::size_t bytes);
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  std::string name() const { return to_string(kind()); }
  // Empty when usable; otherwise one line saying why not (no driver, not built, ...).
  virtual std::string unavailable_reason() const = 0;
  virtual std::vector<std::shared_ptr<Device>> devices() = 0;
};

// A backend that looks for its devices once, on first use, so that a missing driver
// costs nothing until the backend is asked for.
class ScanningBackend : public Backend {
 public:
  std::string unavailable_reason() const final {
    ensure();
    return reason_;
  }
  std::vector<std::shared_ptr<Device>> devices() final {
    ensure();
    return devices_;
  }

 protected:
  // Fills devices_, or reason_ (one line) when the backend cannot be used.
  virtual void scan() = 0;
  std::string reason_;
  std::vector<std::shared_ptr<Device>> devices_;

 private:
  void ensure() const {
    std::call_once(once_, [this] { const_cast<ScanningBackend*>(this)->scan(); });
  }
  mutable std::once_flag once_;
};

// Backends register themselves from their own source file; the factory runs on first
// use of backends().
void register_backend(BackendKind kind, std::function<std::shared_ptr<Backend>()> make);
struct BackendRegistrar {
  BackendRegistrar(BackendKind kind, std::function<std::shared_ptr<Backend>()> make) {
    register_backend(kind, std::move(make));
  }
};

// One backend per kind, in the order of kBackendKinds (host, opencl, cuda); a kind this
// build left out is listed with the reason.
std::vector<std::shared_ptr<Backend>>& backends();
Backend& backend(BackendKind kind);
std::vector<std::shared_ptr<Device>> all_devices();
// A new buffer on `dev` holding a copy of `bytes` bytes at `data`, at least `at_least`
// bytes long: an empty array still gets a buffer, whose address a kernel is given.
std::unique_ptr<Buffer> upload_copy(Device& dev, const void* data, std::size_t bytes, std::size_t at_least = 4);
// "host", "opencl:P:D", "cuda:N", "all", or a unique substring of a device name.
// Throws Error listing the devices when nothing or more than one matches.
std::vector<std::shared_ptr<Device>> resolve_devices(const std::string& spec);

}  // namespace hetbench
