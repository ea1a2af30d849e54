// Hooks around the timed repetitions of every point, for measurements that ride along
// with the timing: board power and energy, SM clocks and throttling (NVML), percentages
// of measured ceilings.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "hetbench/record.hpp"

namespace hetbench {

// What the user asked of the observers for a point.
struct ObserveOptions {
  // --energy: where the timed repetitions are too short to measure energy, an observer
  // may run the work again in a window of its own.
  bool energy_window = false;
};

// The hooks run in this order for each measured point: begin, sample after every timed
// repetition, timed_end, then (after the last run is validated) end.
class PointObserver {
 public:
  virtual ~PointObserver() = default;
  // Right before the first timed repetition.
  virtual void begin(Device& dev, const Problem& prob, const ObserveOptions& opts) {
    (void)dev; (void)prob; (void)opts;
  }
  // Right after each timed repetition (its seconds are timing.samples.back()), untimed and
  // before the next reset: per-sample marks. An observer that marks samples appends
  // exactly one entry per call to its vectors of `timing`, so that they stay parallel
  // to timing.samples.
  virtual void sample(Device& dev, PointTiming& timing) { (void)dev; (void)timing; }
  // Right after the last timed repetition, before anything else touches the device:
  // for counters read around the timed loop.
  virtual void timed_end(Device& dev, const PointTiming& timing) { (void)dev; (void)timing; }
  // After the last timed run is validated. `rec` holds the point's timing, gflops and
  // gbs; the observer fills its fields of rec.observed. `run_once` issues one more
  // repetition (no output reset), for observers that need the work back to back.
  virtual void end(Device& dev, const Problem& prob, PointRecord& rec, const std::function<void()>& run_once) {
    (void)dev; (void)prob; (void)rec; (void)run_once;
  }
};

void register_observer(std::shared_ptr<PointObserver> o);
const std::vector<std::shared_ptr<PointObserver>>& observers();

}  // namespace hetbench
