#include "engine/measure/clock_lock.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "engine/measure/interrupt.hpp"
#include "engine/plan/plan.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

namespace fs = std::filesystem;

namespace {

// A process's start time (clock ticks after boot, /proc/PID/stat field 22): with the pid,
// it names the process (a pid alone is reused). "" where unreadable.
std::string process_start(long pid) {
  std::ifstream f(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  if (!std::getline(f, stat)) return "";
  const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return "";
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return field;
  return "";
}

bool process_alive(long pid, const std::string& start) {
  if (pid <= 0) return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  const std::string now = process_start(pid);
  return now.empty() || start.empty() || now == start;
}

std::string utc_now() { return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr))); }

nlohmann::json read_record(const fs::path& p) {
  std::ifstream f(p);
  auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("gpus") || !j["gpus"].is_array())
    throw Error(fmt::format("clock lock record {} is not one hetbench wrote", p.string()));
  return j;
}

// Written whole or not at all: a kill while writing leaves the old record or none.
void write_record(const fs::path& p, const nlohmann::json& j) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream f(tmp);
    f << j.dump(1) << "\n";
    if (!f) throw Error(fmt::format("--lock-clocks: cannot write the lock record {}", tmp.string()));
  }
  fs::rename(tmp, p, ec);
  if (ec) throw Error(fmt::format("--lock-clocks: cannot write the lock record {}: {}", p.string(), ec.message()));
}

std::string devices_text(const nlohmann::json& g) {
  std::string s;
  for (const auto& d : g["devices"]) s += (s.empty() ? "" : ", ") + d.get<std::string>();
  return s;
}

std::string holder_text(const nlohmann::json& r) {
  return fmt::format("hetbench pid {} (since {})", r.value("pid", 0L), r.value("since", "?"));
}

// The clock a request asks of one GPU.
unsigned requested_mhz(ClockControl& c, const std::string& request, const std::string& gpu, const std::string& who) {
  if (request == "max" || request == "base") {
    const unsigned mhz = request == "max" ? c.max_mhz(gpu) : c.base_mhz(gpu);
    if (!mhz)
      throw Error(fmt::format("--lock-clocks {}: the driver of {} gives no {} SM clock; give one in MHz", request, who,
                              request == "max" ? "highest" : "base (default application)"));
    return mhz;
  }
  unsigned mhz = 0;
  const auto [end, ec] = std::from_chars(request.data(), request.data() + request.size(), mhz);
  if (ec != std::errc() || end != request.data() + request.size() || mhz == 0)
    throw Error(fmt::format("--lock-clocks '{}': expected max, base or an SM clock in MHz", request));
  if (const unsigned top = c.max_mhz(gpu); top && mhz > top)
    throw Error(fmt::format("--lock-clocks {}: above the highest SM clock of {}, {} MHz", mhz, who, top));
  return mhz;
}

}  // namespace

fs::path clock_lock_record_path() {
  if (const char* d = std::getenv("HETBENCH_STATE_DIR"); d && *d) return fs::path(d) / "clock-lock.json";
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) return fs::path(x) / "hetbench" / "clock-lock.json";
  const char* home = std::getenv("HOME");
  return fs::path(home && *home ? home : "/tmp") / ".local" / "state" / "hetbench" / "clock-lock.json";
}

std::vector<std::string> restore_left_clock_locks(ClockControl* control, const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return {};
  nlohmann::json r;
  try {
    r = read_record(path);
  } catch (const Error& e) {
    return {fmt::format("{}; it is left as it is (remove it once the GPUs' clocks are known to be unlocked)", e.what())};
  }
  if (process_alive(r.value("pid", 0L), r.value("pid_start", ""))) return {};
  std::vector<std::string> said;
  nlohmann::json left = nlohmann::json::array();
  std::string why;
  if (!control) control = clock_control(&why);
  for (const auto& g : r["gpus"]) {
    const std::string gpu = g.value("gpu", "");
    const std::string fail = control ? control->reset(gpu) : why;
    if (fail.empty()) {
      said.push_back(fmt::format("restored the SM clocks of GPU {} ({}), locked at {} MHz by {}, which ended without "
                                 "giving them back",
                                 gpu, devices_text(g), g.value("mhz", 0u), holder_text(r)));
    } else {
      said.push_back(fmt::format("could not give back the SM clocks of GPU {} ({}), locked by {}: {}; {} keeps it for "
                                 "the next start",
                                 gpu, devices_text(g), holder_text(r), fail, path.string()));
      left.push_back(g);
    }
  }
  if (left.empty()) {
    fs::remove(path, ec);
  } else {
    r["gpus"] = left;
    write_record(path, r);
  }
  return said;
}

ClockLock::ClockLock(ClockControl& control, const std::vector<DeviceInfo>& devices, const std::string& request,
                     fs::path record)
    : control_(control), path_(std::move(record)) {
  for (const auto& line : restore_left_clock_locks(&control_, path_)) fmt::print(stderr, "hetbench: {}\n", line);
  std::error_code ec;
  if (fs::exists(path_, ec)) {
    nlohmann::json held;
    try {
      held = read_record(path_);
    } catch (const Error& e) {
      throw Error(fmt::format("--lock-clocks: {}", e.what()));
    }
    throw Error(fmt::format("--lock-clocks: {} holds GPU clocks locked ({}); wait for it to end", holder_text(held),
                            path_.string()));
  }
  // One entry per GPU, in the devices' order.
  std::map<std::string, std::size_t> index;
  nlohmann::json gpus = nlohmann::json::array();
  std::string not_gpus;
  for (const auto& d : devices) {
    std::string why;
    const std::string gpu = control_.gpu_of(d, &why);
    if (gpu.empty()) {
      not_gpus += fmt::format("{}{} ({})", not_gpus.empty() ? "" : "; ", d.id, why);
      continue;
    }
    auto [it, fresh] = index.emplace(gpu, gpus.size());
    if (fresh) gpus.push_back({{"gpu", gpu}, {"devices", nlohmann::json::array()}});
    gpus[it->second]["devices"].push_back(d.id);
  }
  if (gpus.empty())
    throw Error(fmt::format("--lock-clocks: no NVIDIA GPU among the devices to lock: {}", not_gpus.empty() ? "none" : not_gpus));
  for (auto& g : gpus) g["mhz"] = requested_mhz(control_, request, g["gpu"], devices_text(g));
  record_ = {{"format", 1},
             {"pid", static_cast<long>(getpid())},
             {"pid_start", process_start(getpid())},
             {"since", utc_now()},
             {"request", request},
             {"gpus", gpus}};
  // Written before the first lock: a kill between two locks still leaves what to restore.
  write_record(path_, record_);
  exit_hook_ = add_forced_exit_hook([this] { give_back(); });
  for (const auto& g : gpus) {
    bool denied = false;
    const std::string fail = control_.lock(g["gpu"], g["mhz"].get<unsigned>(), &denied);
    if (fail.empty()) continue;
    const std::string back = release();
    throw Error(fmt::format("--lock-clocks: {} to lock the SM clock of {} at {} MHz ({}){}{}",
                            denied ? "not permitted" : "could not", devices_text(g), g["mhz"].get<unsigned>(), fail,
                            denied ? ": it takes root, or a driver that lets users lock clocks" : "",
                            back.empty() ? "; nothing is left locked" : "; " + back));
  }
}

std::string ClockLock::release() {
  if (exit_hook_ >= 0) remove_forced_exit_hook(exit_hook_);
  exit_hook_ = -1;
  return give_back();
}

std::string ClockLock::give_back() {
  if (released_) return "";
  released_ = true;
  std::string fails;
  nlohmann::json left = nlohmann::json::array();
  for (const auto& g : record_["gpus"]) {
    const std::string fail = control_.reset(g["gpu"]);
    if (fail.empty()) continue;
    fails += fmt::format("{}could not give back the SM clocks of {} ({})", fails.empty() ? "" : "; ", devices_text(g), fail);
    left.push_back(g);
  }
  std::error_code ec;
  if (left.empty()) {
    fs::remove(path_, ec);
    return "";
  }
  nlohmann::json r = record_;
  r["gpus"] = left;
  r["pid"] = 0;  // no live owner: the next start tries again
  try {
    write_record(path_, r);
  } catch (const Error&) {
  }
  return fails + fmt::format("; {} keeps them for the next start to try again", path_.string());
}

std::unique_ptr<ClockLock> lock_experiment_clocks(const std::string& request, const Plan& plan) {
  if (request.empty()) return nullptr;
  std::string why;
  ClockControl* c = clock_control(&why);
  if (!c) throw Error("--lock-clocks: " + why);
  std::vector<DeviceInfo> devices;
  std::set<std::string> seen;
  for (const auto& run : plan.runs)
    for (const auto& d : run.devices)
      if (seen.insert(d->id()).second) devices.push_back(d->info());
  auto lock = std::make_unique<ClockLock>(*c, devices, request);
  std::string locked;
  for (const auto& g : lock->recorded()["gpus"])
    locked += fmt::format("{}{} at {} MHz", locked.empty() ? "" : ", ", devices_text(g), g["mhz"].get<unsigned>());
  fmt::print(stderr, "hetbench: SM clocks locked (--lock-clocks {}): {}; given back at the end\n", request, locked);
  return lock;
}

ClockLock::~ClockLock() {
  if (const std::string fail = release(); !fail.empty()) fmt::print(stderr, "hetbench: warning: {}\n", fail);
}

}  // namespace hetbench
