// Hooks around the timed repetitions of every point, for measurements that ride along
// with the timing: board power and energy (NVML), percentages of measured ceilings.
#pragma once

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
};

void register_observer(std::shared_ptr<PointObserver> o);
const std::vector<std::shared_ptr<PointObserver>>& observers();

}  // namespace hetbench
