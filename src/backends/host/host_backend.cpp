#include "backends/host/host_backend.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "util/page_parts.hpp"

namespace hetbench {

namespace {

std::string cpuinfo_field(const std::string& key) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(key, 0) == 0) {
      auto c = line.find(':');
      if (c != std::string::npos) {
        auto v = line.substr(c + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
    }
  }
  return "";
}

std::uint64_t meminfo_kb(const std::string& key) {
  std::ifstream f("/proc/meminfo");
  std::string k;
  std::uint64_t v = 0;
  std::string unit;
  while (f >> k >> v >> unit)
    if (k == key + ":") return v;
  return 0;
}

int max_clock_mhz() {
  std::ifstream f("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  long khz = 0;
  if (f >> khz && khz > 0) return static_cast<int>(khz / 1000);
  auto mhz = cpuinfo_field("cpu MHz");
  return mhz.empty() ? 0 : static_cast<int>(std::atof(mhz.c_str()));
}

// The highest cache level's size from sysfs (index*/level, index*/size as "32768K"),
// else what glibc reports for L3 and L2; 0 where nothing says.
std::uint64_t last_level_cache() {
  int best_level = 0;
  std::uint64_t best = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", i);
    std::ifstream lf(dir + "level"), sf(dir + "size");
    int level = 0;
    std::uint64_t size = 0;
    std::string unit;
    if (!(lf >> level) || !(sf >> size)) continue;
    sf >> unit;
    size *= unit == "K" ? 1024 : unit == "M" ? 1048576 : 1;
    if (level > best_level || (level == best_level && size > best)) best_level = level, best = size;
  }
  if (best) return best;
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE})
    if (long v = sysconf(name); v > 0) return static_cast<std::uint64_t>(v);
  return 0;
}

}  // namespace

// Large copies and fills in for_page_parts' parts (util/page_parts.hpp): a fresh buffer's
// first touch (a new round's, docs/measurement.md) is spread over the cores, and on a
// NUMA host lands where the OpenMP variants read.
HostBuffer::HostBuffer(std::size_t bytes) : Buffer(bytes) {
  data_ = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (!data_) throw PointError(fmt::format("host out of memory allocating {} bytes", bytes));
}
HostBuffer::~HostBuffer() { std::free(data_); }
void HostBuffer::upload(const void* src) {
  for_page_parts(bytes_, [&](std::size_t off, std::size_t n) {
    std::memcpy(static_cast<char*>(data_) + off, static_cast<const char*>(src) + off, n);
  });
}
void HostBuffer::download(void* dst) {
  for_page_parts(bytes_, [&](std::size_t off, std::size_t n) {
    std::memcpy(static_cast<char*>(dst) + off, static_cast<const char*>(data_) + off, n);
  });
}
void HostBuffer::fill(unsigned char byte) {
  for_page_parts(bytes_, [&](std::size_t off, std::size_t n) { std::memset(static_cast<char*>(data_) + off, byte, n); });
}
void HostBuffer::copy_from(Buffer& src) { src.download(data_); }

HostDevice::HostDevice() {
  info_.id = "host";
  info_.backend = BackendKind::Host;
  info_.type = "cpu";
  info_.name = cpuinfo_field("model name");
  if (info_.name.empty()) info_.name = "host CPU";
  info_.vendor = cpuinfo_field("vendor_id");
  utsname u{};
  if (uname(&u) == 0) info_.driver = fmt::format("{} {}", u.sysname, u.release);
  info_.version = "C++ (" HETBENCH_COMPILER ", OpenMP)";
  info_.compute_units = static_cast<int>(std::thread::hardware_concurrency());
  info_.max_clock_mhz = max_clock_mhz();
  info_.global_mem = meminfo_kb("MemTotal") * 1024;
  info_.max_alloc = info_.global_mem;
  info_.llc_bytes = last_level_cache();
  info_.fp64 = true;
  info_.max_wg = 1;
  info_.pref_wg_multiple = 1;
  auto flags = cpuinfo_field("flags");
  auto has = [&](const char* f) { return (" " + flags + " ").find(std::string(" ") + f + " ") != std::string::npos; };
  int lanes = has("avx512f") ? 16 : has("avx2") ? 8 : has("avx") ? 8 : 4;
  int fma = has("fma") || has("avx512f") ? 2 : 1;
  info_.extra["simd_lanes_f32"] = lanes;
  info_.extra["fma"] = fma == 2;
  info_.extra["l3_cache"] = cpuinfo_field("cache size");
  if (info_.max_clock_mhz > 0) {
    // Two FMA pipes per core is an assumption (true of recent x86 server cores); the
    // measured ceilings of `hetbench ceilings` are what the reports rely on.
    double per_cycle = lanes * fma * 2.0;
    info_.peak_gflops_s = info_.compute_units * info_.max_clock_mhz * 1e-3 * per_cycle;
    info_.peak_gflops_d = *info_.peak_gflops_s / 2;
    info_.peak_note = fmt::format("estimate: {} logical cores x {} MHz x {} f32 lanes x {} (FMA) x 2 FMA pipes assumed",
                                  info_.compute_units, info_.max_clock_mhz, lanes, fma);
  }
}

std::unique_ptr<Buffer> HostDevice::alloc(std::size_t bytes) { return std::make_unique<HostBuffer>(bytes); }

double HostDevice::time(const std::function<void()>& work) {
  auto t0 = std::chrono::steady_clock::now();
  work();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

namespace {
class HostBackend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Host; }
  std::string unavailable_reason() const override { return ""; }
  std::vector<std::shared_ptr<Device>> devices() override { return {host_device()}; }
};
const BackendRegistrar registrar(BackendKind::Host, [] { return std::make_shared<HostBackend>(); });
}  // namespace

std::shared_ptr<HostDevice> host_device() {
  static auto d = std::make_shared<HostDevice>();
  return d;
}

}  // namespace hetbench
