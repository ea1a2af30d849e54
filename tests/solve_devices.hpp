// The devices the solver tests run on: the host, and PoCL where it is installed.
#pragma once

#include <memory>
#include <vector>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"

namespace hetbench::test {

inline std::vector<std::shared_ptr<Device>> solve_devices() {
  std::vector<std::shared_ptr<Device>> out = resolve_devices("host");
  try {
    auto cl = resolve_devices("opencl:0:0");
    out.insert(out.end(), cl.begin(), cl.end());
  } catch (const Error&) {  // no OpenCL platform here: the host alone
  }
  return out;
}

}  // namespace hetbench::test
