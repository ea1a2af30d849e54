// The clock-control registry: the NVIDIA backend registers its NVML implementation from its
// own source file; tests put a fake in its place.
#include "hetbench/clock_control.hpp"

#include <mutex>

namespace hetbench {

namespace {
struct Registered {
  std::mutex m;
  std::shared_ptr<ClockControl> control;
  std::string why = "this build has no NVIDIA backend (no NVML clock control)";
};
Registered& registered() {
  static Registered r;
  return r;
}
}  // namespace

ClockControl* clock_control(std::string* why) {
  auto& r = registered();
  std::lock_guard l(r.m);
  if (!r.control && why) *why = r.why;
  return r.control.get();
}

std::shared_ptr<ClockControl> set_clock_control(std::shared_ptr<ClockControl> c) {
  auto& r = registered();
  std::lock_guard l(r.m);
  std::swap(r.control, c);
  return c;
}

}  // namespace hetbench
