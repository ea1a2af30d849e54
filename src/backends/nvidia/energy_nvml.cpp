// Board energy of NVIDIA GPUs through NVML (docs/measurement.md, "Energy"). The
// nvmlDeviceGetTotalEnergyConsumption counter (mJ) is read right before and right after
// the timed repetitions; when the repetitions themselves kept the GPU busy for at least
// HETBENCH_ENERGY_MS (default 250 ms), the energy comes from them at no extra cost.
// Shorter points get energy only with --energy, from a window of their own in which the
// work runs back to back (the timed repetitions have untimed resets between them).
//
// Resolution: the counter is read in mJ, but the board sensor behind it is refreshed
// about every 100 ms, and on A100 and H100 it averages only 25 ms of every 100 ms (Yang,
// Adamek and Armour, "Part-time Power Measurements: nvidia-smi's Lack of Attention",
// 2023). A quarter of a second is the shortest span read at all; longer is steadier.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "backends/nvidia/nvml.hpp"
#include "hetbench/energy.hpp"
#include "hetbench/observer.hpp"

namespace hetbench {

namespace {

using Clock = std::chrono::steady_clock;

bool read_counter(nvml::Device h, unsigned long long& mj) {
  const auto* a = nvml::api();
  return a->DeviceGetTotalEnergyConsumption && a->DeviceGetTotalEnergyConsumption(h, &mj) == nvml::kSuccess;
}

class NvmlEnergy final : public PointObserver {
 public:
  void begin(Device& dev, const Problem&, const ObserveOptions& opts) override {
    state_ = State{};
    if (dev.info().type == "cpu") return;  // a CPU's energy is RAPL's (backends/host/energy_rapl.cpp)
    state_.window = opts.energy_window;
    auto [h, why] = nvml::device_for(dev.info());
    if (!h) return;
    unsigned mw = 0;
    if (nvml::api()->DeviceGetPowerUsage(h, &mw) == nvml::kSuccess) state_.idle_w = mw * 1e-3;
    // Last: as close to the first timed repetition as possible.
    state_.counter = read_counter(h, state_.e0);
    state_.t0 = Clock::now();
  }

  void timed_end(Device& dev, const PointTiming& t) override {
    auto [h, why] = nvml::device_for(dev.info());
    if (!h || !state_.counter) return;
    const auto t1 = Clock::now();
    unsigned long long e1 = 0;
    const bool read = read_counter(h, e1);
    state_.timed_measured = t.measured_s;
    state_.timed_reps = t.samples.size();
    state_.timed_wall = std::chrono::duration<double>(t1 - state_.t0).count();
    if (read && e1 > state_.e0) state_.timed_j = (e1 - state_.e0) * 1e-3;
  }

  void end(Device& dev, const Problem& prob, PointRecord& rec, const std::function<void()>& run_once) override {
    if (dev.info().type == "cpu") return;
    auto& energy = rec.observed.energy;
    auto [h, why] = nvml::device_for(dev.info());
    const double need_ms = energy_window_ms();
    if (h && need_ms <= 0) why = "disabled (HETBENCH_ENERGY_MS=0)";
    if (!h || need_ms <= 0) {
      energy = {{"available", false}, {"reason", why}};
      return;
    }
    const State& s = state_;
    if (s.timed_j > 0 && s.timed_measured * 1e3 >= need_ms) {
      // The board may draw other power in the untimed resets between repetitions: the
      // energy of one repetition is the average power times its mean time.
      const double watts = s.timed_j / s.timed_wall;
      const double per_rep = watts * s.timed_measured / static_cast<double>(s.timed_reps);
      energy = energy_summary(prob, watts, per_rep, s.timed_reps, s.timed_wall, "timed-reps",
                              "nvmlDeviceGetTotalEnergyConsumption counter read before and after the timed repetitions");
      energy["duty_cycle"] = s.timed_measured / s.timed_wall;
    } else if (s.window) {
      energy = window(dev, h, prob, rec, run_once, need_ms);
    } else {
      const std::string reason =
          s.counter ? fmt::format("the timed repetitions kept the GPU busy for {:.0f} ms, under the {:.0f} ms the "
                                  "NVML energy counter needs; --energy measures a window of its own",
                                  s.timed_measured * 1e3, need_ms)
                    : "this GPU has no NVML energy counter; --energy samples its power in a window of its own";
      energy = {{"available", false}, {"reason", reason}};
    }
    if (energy.value("available", false)) {
      energy["idle_power_w"] = s.idle_w ? nlohmann::json(*s.idle_w) : nlohmann::json(nullptr);
      energy["idle_note"] = "board power read right before the timed reps (NVML averages over up to 1 s)";
    }
  }

 private:
  struct State {
    bool window = false, counter = false;
    std::optional<double> idle_w;
    unsigned long long e0 = 0;
    Clock::time_point t0;
    double timed_j = 0, timed_wall = 0, timed_measured = 0;
    std::size_t timed_reps = 0;
  } state_;

  // --energy on a short point: the work back to back for at least need_ms, power and
  // clocks sampled every 10 ms meanwhile.
  static nlohmann::json window(Device& dev, nvml::Device h, const Problem& prob, const PointRecord& rec,
                               const std::function<void()>& run_once, double need_ms) {
    const auto* a = nvml::api();
    const double seconds = rec.timing ? rec.timing->seconds.median : 0;
    dev.finish();
    std::atomic<bool> stop{false};
    std::vector<double> watts;
    unsigned sm_min = ~0u, sm_max = 0, mem_min = ~0u, mem_max = 0;
    std::thread sampler([&] {
      while (!stop.load()) {
        unsigned v = 0;
        if (a->DeviceGetPowerUsage(h, &v) == nvml::kSuccess) watts.push_back(v * 1e-3);
        if (a->DeviceGetClockInfo && a->DeviceGetClockInfo(h, nvml::kClockSM, &v) == nvml::kSuccess) {
          sm_min = std::min(sm_min, v);
          sm_max = std::max(sm_max, v);
        }
        if (a->DeviceGetClockInfo && a->DeviceGetClockInfo(h, nvml::kClockMem, &v) == nvml::kSuccess) {
          mem_min = std::min(mem_min, v);
          mem_max = std::max(mem_max, v);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    unsigned long long e0 = 0, e1 = 0;
    bool counter = read_counter(h, e0);
    BackToBack b;
    try {
      b = run_back_to_back(dev, run_once, seconds, need_ms);
    } catch (...) {
      stop = true;
      sampler.join();
      throw;
    }
    counter = counter && read_counter(h, e1) && e1 > e0;
    stop = true;
    sampler.join();
    const double elapsed = b.seconds;
    const std::size_t count = b.reps;

    double avg_sampled = 0;
    for (double w : watts) avg_sampled += w;
    if (!watts.empty()) avg_sampled /= static_cast<double>(watts.size());
    const double joules = counter ? (e1 - e0) * 1e-3 : avg_sampled * elapsed;
    if (joules <= 0) return {{"available", false}, {"reason", "NVML reported no power or energy for this device"}};
    auto j = energy_summary(prob, joules / elapsed, joules / static_cast<double>(count), count, elapsed, "window",
                            counter ? "nvmlDeviceGetTotalEnergyConsumption counter over back-to-back reps"
                                    : "nvmlDeviceGetPowerUsage sampled every 10 ms x wall time");
    if (!watts.empty()) j["sampled_power_w"] = avg_sampled;
    if (sm_max > 0) j["sm_clock_mhz"] = {{"min", sm_min}, {"max", sm_max}};
    if (mem_max > 0) j["mem_clock_mhz"] = {{"min", mem_min}, {"max", mem_max}};
    return j;
  }
};

const bool registered_energy_nvml = [] {
  register_observer(std::make_shared<NvmlEnergy>());
  return true;
}();

}  // namespace

}  // namespace hetbench
