// Hooks around the timed repetitions of every point, for measurements that ride along
// with the timing: board power and energy (NVML), percentages of measured ceilings.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "hetbench/record.hpp"

namespace hetbench {

class PointObserver {
 public:
  virtual ~PointObserver() = default;
  // Right before the first timed repetition.
  virtual void begin(Device& dev, const Problem& prob) { (void)dev; (void)prob; }
  // Right after the last one. `rec` holds the point's timing, gflops and gbs; the
  // observer fills its fields of rec.observed. `run_once` issues one more repetition
  // (no output reset), for observers that need the work back to back (energy over
  // >= 200 ms).
  virtual void end(Device& dev, const Problem& prob, PointRecord& rec, const std::function<void()>& run_once) {
    (void)dev; (void)prob; (void)rec; (void)run_once;
  }
};

void register_observer(std::shared_ptr<PointObserver> o);
const std::vector<std::shared_ptr<PointObserver>>& observers();

}  // namespace hetbench
