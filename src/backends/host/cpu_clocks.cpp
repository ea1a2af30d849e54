// The CPU frequencies and governors under each point on CPU devices (the host, and OpenCL
// CPU devices such as PoCL), from Linux's cpufreq sysfs, as NVML's clock is read for
// NVIDIA GPUs (clocks_nvml.cpp): after every timed repetition, the mean of the CPUs'
// scaling_cur_freq (MHz), and the scaling_governor values seen over the point. Reading
// every CPU's file costs about 10 us a CPU, so a read is taken at most every
// kMinReadInterval and the samples between repeat the last one (the vector stays parallel
// to the samples). Where there is no cpufreq (most virtual machines have no frequency
// driver), the record says so in one line (timing.cpu_clock_why). HETBENCH_CPUFREQ_ROOT
// names another tree of the same layout (the tests use one where the machine has none).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hetbench/observer.hpp"

namespace hetbench {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kMinReadInterval = std::chrono::milliseconds(10);

fs::path cpufreq_root() {
  const char* e = std::getenv("HETBENCH_CPUFREQ_ROOT");
  return e && *e ? fs::path(e) : fs::path("/sys/devices/system/cpu");
}

struct CpuFiles {
  std::vector<fs::path> cur_khz, governor;
  std::string why;  // where there are none
};

CpuFiles find_cpu_files(const fs::path& root) {
  CpuFiles f;
  static const std::regex cpu_dir("cpu[0-9]+");
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!std::regex_match(it->path().filename().string(), cpu_dir)) continue;
    const auto freq = it->path() / "cpufreq";
    if (fs::exists(freq / "scaling_cur_freq", ec)) f.cur_khz.push_back(freq / "scaling_cur_freq");
    if (fs::exists(freq / "scaling_governor", ec)) f.governor.push_back(freq / "scaling_governor");
  }
  if (f.cur_khz.empty())
    f.why = fmt::format("no CPU frequencies: no '{}/cpu*/cpufreq/scaling_cur_freq' (no cpufreq driver, as in most "
                        "virtual machines)",
                        root.string());
  return f;
}

class CpuClocks final : public PointObserver {
 public:
  void begin(Device& dev, const Problem&, const ObserveOptions&) override {
    on_ = dev.info().type == "cpu";
    if (!on_) return;
    files_ = find_cpu_files(cpufreq_root());
    governors_.clear();
    last_mhz_ = 0;
    last_read_ = {};
  }

  void sample(Device&, PointTiming& t) override {
    if (!on_) return;
    if (files_.cur_khz.empty()) {
      t.cpu_clock_why = files_.why;
      return;
    }
    const auto now = Clock::now();
    if (last_mhz_ == 0 || now - last_read_ >= kMinReadInterval) {
      last_mhz_ = mean_mhz();
      last_read_ = now;
      for (const auto& g : files_.governor) {
        std::string name;
        if (std::ifstream(g) >> name) governors_.insert(name);
      }
      t.cpu_governors.assign(governors_.begin(), governors_.end());
    }
    t.cpu_clock_mhz.push_back(last_mhz_);
  }

 private:
  // The mean of the CPUs' current frequencies (kHz in the files); 0 where none was read.
  unsigned mean_mhz() const {
    double sum = 0;
    int n = 0;
    for (const auto& p : files_.cur_khz) {
      long long khz = 0;
      if (std::ifstream(p) >> khz && khz > 0) {
        sum += static_cast<double>(khz) / 1000;
        ++n;
      }
    }
    return n ? static_cast<unsigned>(sum / n + 0.5) : 0;
  }

  bool on_ = false;
  CpuFiles files_;
  std::set<std::string> governors_;
  unsigned last_mhz_ = 0;
  Clock::time_point last_read_;
};

const bool registered_cpu_clocks = [] {
  register_observer(std::make_shared<CpuClocks>());
  return true;
}();

}  // namespace

}  // namespace hetbench
