// libFuzzer's entry point for one target; CMake compiles this file once per target with
// HETBENCH_FUZZ_TARGET set to the body's name (fuzz/targets/targets.hpp).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "targets/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  hetbench::fuzz::HETBENCH_FUZZ_TARGET(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
