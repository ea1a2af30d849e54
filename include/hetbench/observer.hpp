// Hooks around the timed repetitions of every point, for measurements that ride along
// with the timing: board power and energy (NVML), percentages of measured ceilings.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/device.hpp"
#include "hetbench/op.hpp"

namespace hetbench {

class PointObserver {
 public:
  virtual ~PointObserver() = default;
  // Right before the first timed repetition.
  virtual void begin(Device& dev, const Problem& prob) { (void)dev; (void)prob; }
  // Right after the last one; `seconds` is the median time of one repetition and `rec`
  // the point's record so far (gflops, gbs, timing), to be completed.
  virtual void end(Device& dev, const Problem& prob, double seconds, std::size_t reps, nlohmann::json& rec) {
    (void)dev; (void)prob; (void)seconds; (void)reps; (void)rec;
  }
  // What the runner calls. `run_once` issues one more repetition (no output reset), for
  // observers that need the work back to back (energy over >= 200 ms); by default it
  // forwards to the overload above, so observers that do not need it stay unchanged.
  virtual void end(Device& dev, const Problem& prob, double seconds, std::size_t reps, nlohmann::json& rec,
                   const std::function<void()>& run_once) {
    (void)run_once;
    end(dev, prob, seconds, reps, rec);
  }
};

void register_observer(std::shared_ptr<PointObserver> o);
const std::vector<std::shared_ptr<PointObserver>>& observers();

}  // namespace hetbench
