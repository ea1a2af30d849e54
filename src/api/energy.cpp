#include "hetbench/energy.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

namespace hetbench {

double energy_window_ms() {
  const char* e = std::getenv("HETBENCH_ENERGY_MS");
  return e && *e ? std::atof(e) : 250.0;
}

nlohmann::json energy_summary(const Problem& prob, double watts, double per_rep_j, std::size_t reps, double seconds,
                              const char* source, const std::string& method) {
  return {{"available", true},
          {"avg_power_w", watts},
          {"energy_per_rep_j", per_rep_j},
          {"gflop_per_j", prob.flops / per_rep_j * 1e-9},
          {"gb_per_j", prob.min_bytes / per_rep_j * 1e-9},
          {"reps", reps},
          {"seconds", seconds},
          {"source", source},
          {"method", method}};
}

BackToBack run_back_to_back(Device& dev, const std::function<void()>& run_once, double seconds_per_run,
                            double need_ms) {
  using Clock = std::chrono::steady_clock;
  // Batches of ~50 ms keep the queue full while bounding the overshoot.
  const double batch_s = std::min(0.05, need_ms * 1e-3);
  const auto batch =
      static_cast<std::size_t>(std::clamp(std::ceil(batch_s / std::max(seconds_per_run, 1e-7)), 1.0, 1e5));
  BackToBack b;
  const auto t0 = Clock::now();
  while (b.seconds * 1e3 < need_ms) {
    for (std::size_t i = 0; i < batch; ++i) run_once();
    dev.finish();
    b.reps += batch;
    b.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  }
  return b;
}

}  // namespace hetbench
