// The devices the solver tests run on: the host, and PoCL where it is installed; with
// `gpu`, also cuda:0 where there is one (scripts/gpu-check runs those tests there).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"

namespace hetbench::test {

inline std::vector<std::shared_ptr<Device>> solve_devices(bool gpu = false) {
  std::vector<std::shared_ptr<Device>> out = resolve_devices("host");
  for (const char* id : {"opencl:0:0", "cuda:0"}) {
    if (!gpu && std::string(id) == "cuda:0") continue;
    try {
      auto d = resolve_devices(id);
      out.insert(out.end(), d.begin(), d.end());
    } catch (const Error&) {  // no such platform or device here
    }
  }
  return out;
}

}  // namespace hetbench::test
