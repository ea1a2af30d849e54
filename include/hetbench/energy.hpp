// What every energy observer shares (NVML on NVIDIA GPUs, RAPL on CPUs): the record's
// energy fields, the shortest span a counter is read over, and the window of back-to-back
// repetitions that --energy measures when the timed ones are too short
// (docs/measurement.md, "Energy").
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "hetbench/device.hpp"
#include "hetbench/op.hpp"

namespace hetbench {

// HETBENCH_ENERGY_MS, default 250: the fewest milliseconds of work an energy figure is
// taken over (0 turns energy off).
double energy_window_ms();

// The record's "energy" object for `per_rep_j` joules a repetition at `watts` on average
// over `seconds` and `reps` repetitions; `source` is "timed-reps" or "window".
nlohmann::json energy_summary(const Problem& prob, double watts, double per_rep_j, std::size_t reps, double seconds,
                              const char* source, const std::string& method);

// Runs the point's work back to back (run_once, in batches of about 50 ms, the device
// finished after each) until `need_ms` have passed; `seconds_per_run` sizes the batches.
struct BackToBack {
  std::size_t reps = 0;
  double seconds = 0;
};
BackToBack run_back_to_back(Device& dev, const std::function<void()>& run_once, double seconds_per_run,
                            double need_ms);

}  // namespace hetbench
