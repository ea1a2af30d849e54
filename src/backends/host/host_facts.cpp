// The host's report facts (lscpu's view): CPU model, sockets, cores and threads from
// /proc/cpuinfo, every cache level from sysfs, memory from /proc/meminfo, and the ISA
// extensions the host variants and the peak estimate depend on.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "api/device_facts.hpp"

namespace hetbench {

namespace {

struct CpuInfo {
  std::map<std::string, std::string> first;  // the fields of the first processor
  std::set<std::string> sockets;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  int processors = 0;
};

CpuInfo read_cpuinfo() {
  CpuInfo c;
  std::ifstream f("/proc/cpuinfo");
  std::string line, socket;
  while (std::getline(f, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon), v = line.substr(colon + 1);
    k.erase(k.find_last_not_of(" \t") + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    if (k == "processor") ++c.processors;
    if (c.processors == 1) c.first.emplace(k, v);
    if (k == "physical id") socket = v, c.sockets.insert(v);
    if (k == "core id") c.cores.insert({socket, v});
  }
  return c;
}

std::string read_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

// "32K", "1024K", "16M" as sysfs writes cache sizes.
std::uint64_t sysfs_size(const std::string& s) {
  std::uint64_t v = 0;
  char unit = 0;
  std::istringstream in(s);
  if (!(in >> v)) return 0;
  in >> unit;
  return v * (unit == 'K' ? 1024 : unit == 'M' ? 1048576 : unit == 'G' ? 1073741824 : 1);
}

// Threads sharing a cache: the number of CPUs in a list such as "0-3,64-67".
int cpu_list_count(const std::string& list) {
  int n = 0;
  std::istringstream in(list);
  std::string part;
  while (std::getline(in, part, ',')) {
    const auto dash = part.find('-');
    if (part.empty()) continue;
    n += dash == std::string::npos ? 1 : std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
  }
  return n;
}

void add_cache_facts(FactList& f) {
  f.section("memory");
  bool any = false;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", i);
    const std::string level = read_line(dir + "level"), type = read_line(dir + "type");
    const auto size = sysfs_size(read_line(dir + "size"));
    if (level.empty() || !size) continue;
    any = true;
    const std::string tag = type == "Data" ? "d" : type == "Instruction" ? "i" : "";
    const int shared = cpu_list_count(read_line(dir + "shared_cpu_list"));
    f.add(fmt::format("l{}{}_bytes", level, tag), fmt::format("L{}{} cache", level, tag), size, "bytes",
          shared > 0 ? fmt::format("per {} thread{}, {} B lines", shared, shared == 1 ? "" : "s",
                                   read_line(dir + "coherency_line_size"))
                     : "");
  }
  if (!any) f.absent("caches", "caches", "", "/sys/devices/system/cpu/cpu0/cache is not readable");
}

std::uint64_t meminfo_bytes(const std::string& key) {
  std::ifstream f("/proc/meminfo");
  std::string k, unit;
  std::uint64_t v = 0;
  while (f >> k >> v >> unit)
    if (k == key + ":") return v * 1024;
  return 0;
}

DeviceFacts host_facts(const Device& d) {
  const auto& i = d.info();
  const auto c = read_cpuinfo();
  FactList f;
  add_identity_facts(f, i);
  auto field = [&](const char* k) {
    auto it = c.first.find(k);
    return it == c.first.end() ? std::string() : it->second;
  };
  f.add("model", "CPU model", field("model name"));
  if (!field("cpu family").empty())
    f.add("family_model_stepping", "family / model / stepping",
          fmt::format("{} / {} / {}", field("cpu family"), field("model"), field("stepping")));

  const int threads = static_cast<int>(std::thread::hardware_concurrency());
  f.section("compute");
  if (c.sockets.empty())
    f.absent("sockets", "sockets", "", "/proc/cpuinfo gives no physical id");
  else
    f.add("sockets", "sockets", c.sockets.size());
  if (c.cores.empty())
    f.absent("cores", "physical cores", "", "/proc/cpuinfo gives no core id");
  else
    f.add("cores", "physical cores", c.cores.size());
  f.add("threads", "hardware threads (usable)", threads);
  f.add("threads_online", "hardware threads (online)", sysconf(_SC_NPROCESSORS_ONLN));
  namespace fs = std::filesystem;
  int nodes = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/sys/devices/system/node", ec))
    if (e.path().filename().string().rfind("node", 0) == 0 && std::isdigit(e.path().filename().string()[4])) ++nodes;
  if (nodes)
    f.add("numa_nodes", "NUMA nodes", nodes);
  else
    f.absent("numa_nodes", "NUMA nodes", "", "/sys/devices/system/node is not readable");

  f.section("clocks");
  const std::string cpufreq = "/sys/devices/system/cpu/cpu0/cpufreq/";
  auto khz_fact = [&](const char* key, const char* label, const char* file) {
    const std::string s = read_line(cpufreq + file);
    if (s.empty())
      f.absent(key, label, "MHz", fmt::format("{}{} is not readable (no cpufreq driver, e.g. in a VM)", cpufreq, file));
    else
      f.add(key, label, std::stoll(s) / 1000, "MHz");
  };
  khz_fact("max_mhz", "max clock", "cpuinfo_max_freq");
  khz_fact("base_mhz", "base clock", "base_frequency");
  if (!field("cpu MHz").empty()) f.add("current_mhz", "current clock (cpu0)", std::stod(field("cpu MHz")), "MHz");

  add_cache_facts(f);
  f.add("total_bytes", "memory (MemTotal)", meminfo_bytes("MemTotal"), "bytes")
      .add("available_bytes", "memory available (MemAvailable)", meminfo_bytes("MemAvailable"), "bytes");

  f.section("isa");
  const std::string flags = " " + field("flags") + " ";
  if (flags.size() <= 2)
    f.absent("flags", "ISA flags", "", "/proc/cpuinfo has no flags line (not x86?)");
  for (const char* ext : {"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq", "avx512bw", "avx512vl",
                          "avx512_bf16", "avx512_fp16", "amx_tile"})
    if (flags.size() > 2) f.add(ext, ext, flags.find(std::string(" ") + ext + " ") != std::string::npos);
  f.add("simd_lanes_f32", "f32 SIMD lanes (widest)", i.extra.value("simd_lanes_f32", 0));

  f.section("software").add("kernel", "kernel", i.driver).add("compiler", "compiler", HETBENCH_COMPILER);
  add_peak_facts(f, i);
  return f.take();
}

const FactsRegistrar registered_host_facts(BackendKind::Host, host_facts);

}  // namespace

}  // namespace hetbench
