// CPU energy from RAPL through Linux's powercap interface (docs/measurement.md,
// "Energy"), for the host and for OpenCL CPU devices (PoCL): the package domains'
// energy_uj counters (and DRAM's, reported beside them) are read right before and right
// after the timed repetitions, as NVML's counter is for NVIDIA GPUs; shorter points get
// energy only with --energy, from a window of back-to-back repetitions.
//
// A package counter covers the whole socket: other processes, and the cores that do not
// run the point, are in it. Where there is no powercap tree (most virtual machines), or
// its counters are readable by root only (Linux 5.10 and later, after the Platypus
// attack), the record says so in one line. HETBENCH_POWERCAP_ROOT names another tree of
// the same layout (the tests use one where the machine has none).
#include <chrono>
#include <string>

#include <fmt/format.h>

#include "backends/host/rapl.hpp"
#include "hetbench/energy.hpp"
#include "hetbench/observer.hpp"

namespace hetbench {

namespace {

using namespace rapl;
using Clock = std::chrono::steady_clock;

class RaplEnergy final : public PointObserver {
 public:
  void begin(Device& dev, const Problem&, const ObserveOptions& opts) override {
    state_ = State{};
    if (dev.info().type != "cpu") return;
    state_.window = opts.energy_window;
    state_.domains = open_domains();  // last: as close to the first timed repetition as possible
    state_.t0 = Clock::now();
  }

  void timed_end(Device& dev, const PointTiming& t) override {
    if (dev.info().type != "cpu" || state_.domains.list.empty()) return;
    state_.read = advance(state_.domains.list);
    state_.timed_wall = std::chrono::duration<double>(Clock::now() - state_.t0).count();
    state_.timed_measured = t.measured_s;
    state_.timed_reps = t.samples.size();
  }

  void end(Device& dev, const Problem& prob, PointRecord& rec, const std::function<void()>& run_once) override {
    if (dev.info().type != "cpu") return;
    auto& energy = rec.observed.energy;
    const State& s = state_;
    const double need_ms = energy_window_ms();
    if (need_ms <= 0 || s.domains.list.empty()) {
      energy = {{"available", false}, {"reason", need_ms <= 0 ? "disabled (HETBENCH_ENERGY_MS=0)" : s.domains.why}};
      return;
    }
    const std::string names = domain_names(s.domains.list);
    const Joules timed = totals(s.domains.list);
    if (s.read && timed.package > 0 && s.timed_measured * 1e3 >= need_ms) {
      // As NVML's: the average power over the timed loop times a repetition's mean time.
      const double watts = timed.package / s.timed_wall;
      energy = energy_summary(prob, watts, watts * s.timed_measured / static_cast<double>(s.timed_reps), s.timed_reps,
                              s.timed_wall, "timed-reps",
                              fmt::format("RAPL {} energy_uj (powercap) read before and after the timed repetitions",
                                          names));
      add_domains(energy, timed, s.timed_wall, s.timed_measured / static_cast<double>(s.timed_reps));
    } else if (s.window) {
      energy = window(dev, prob, rec, run_once, need_ms, names);
    } else {
      energy = {{"available", false},
                {"reason", s.read ? fmt::format("the timed repetitions kept the CPU busy for {:.0f} ms, under the {:.0f} "
                                                "ms an energy figure is taken over; --energy measures a window of its own",
                                                s.timed_measured * 1e3, need_ms)
                                  : "the RAPL counters could not be read again after the timed repetitions"}};
    }
  }

 private:
  struct State {
    bool window = false, read = false;
    Domains domains;
    Clock::time_point t0;
    double timed_wall = 0, timed_measured = 0;
    std::size_t timed_reps = 0;
  } state_;

  // The package total is the figure (NVML's is the board's); DRAM, where the CPU has that
  // domain, and what the domains are, go beside it.
  static void add_domains(nlohmann::json& energy, const Joules& j, double seconds, double rep_seconds) {
    energy["domain"] = "package";
    energy["scope"] = "the whole socket: other processes and idle cores included";
    if (j.has_dram) energy["dram_energy_per_rep_j"] = j.dram / seconds * rep_seconds;
  }

  static nlohmann::json window(Device& dev, const Problem& prob, const PointRecord& rec,
                               const std::function<void()>& run_once, double need_ms, const std::string& names) {
    Domains d = open_domains();
    if (d.list.empty()) return {{"available", false}, {"reason", d.why}};
    dev.finish();
    if (!advance(d.list)) return {{"available", false}, {"reason", "the RAPL counters could not be read"}};
    for (auto& dom : d.list) dom.total_uj = 0;
    const BackToBack b = run_back_to_back(dev, run_once, rec.timing ? rec.timing->seconds.median : 0, need_ms);
    if (!advance(d.list)) return {{"available", false}, {"reason", "the RAPL counters could not be read"}};
    const Joules j = totals(d.list);
    if (j.package <= 0)
      return {{"available", false}, {"reason", fmt::format("the RAPL counters ({}) did not advance", names)}};
    auto e = energy_summary(prob, j.package / b.seconds, j.package / static_cast<double>(b.reps), b.reps, b.seconds,
                            "window", fmt::format("RAPL {} energy_uj (powercap) over back-to-back reps", names));
    add_domains(e, j, b.seconds, b.seconds / static_cast<double>(b.reps));
    return e;
  }
};

const bool registered_energy_rapl = [] {
  register_observer(std::make_shared<RaplEnergy>());
  return true;
}();

}  // namespace

}  // namespace hetbench
