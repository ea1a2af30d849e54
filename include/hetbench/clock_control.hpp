// Locking a GPU's clocks (--lock-clocks): the few calls the lock makes, behind an interface
// so that the lock and restore logic (engine/measure/clock_lock.cpp) is tested with injected
// failures, and so that the engine needs no backend. The NVIDIA backend gives the NVML
// implementation (backends/nvidia/clock_control_nvml.cpp).
#pragma once

#include <memory>
#include <string>

#include "hetbench/device.hpp"

namespace hetbench {

class ClockControl {
 public:
  virtual ~ClockControl() = default;
  // The GPU of a hetbench device as a key the other calls take (its PCI address), or ""
  // with `why` (one line: not an NVIDIA GPU, NVML missing). Two devices of one GPU (CUDA
  // and NVIDIA's OpenCL) give the same key.
  virtual std::string gpu_of(const DeviceInfo& d, std::string* why) = 0;
  // The highest SM clock, and the base clock (the default application clock), in MHz;
  // 0 where the driver does not say.
  virtual unsigned max_mhz(const std::string& gpu) = 0;
  virtual unsigned base_mhz(const std::string& gpu) = 0;
  // Locks the SM clock at `mhz` (min = max = mhz). "" on success, else one line; `denied`
  // says whether the failure is a missing permission.
  virtual std::string lock(const std::string& gpu, unsigned mhz, bool* denied) = 0;
  // Gives the clocks back to the driver's control. "" on success, else one line.
  virtual std::string reset(const std::string& gpu) = 0;
};

// The backend's clock control, or nullptr with `why` where no backend gives one (a build
// without the NVIDIA backend). Whether it can work here (NVML present) its calls say.
ClockControl* clock_control(std::string* why = nullptr);
// Puts `c` in place (the backend at start-up; tests, a fake) and returns the one before.
std::shared_ptr<ClockControl> set_clock_control(std::shared_ptr<ClockControl> c);

}  // namespace hetbench
