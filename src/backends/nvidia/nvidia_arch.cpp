#include "backends/nvidia/nvidia_arch.hpp"

namespace hetbench {

std::pair<int, int> nvidia_sm_lanes(int major, int minor) {
  switch (major * 10 + minor) {
    case 60: return {64, 32};
    case 61: case 62: return {128, 4};
    case 70: case 72: return {64, 32};
    case 75: return {64, 2};
    case 80: return {64, 32};
    case 86: case 87: case 89: return {128, 2};
    case 90: return {128, 64};
    case 100: case 103: case 110: return {128, 64};
    case 120: case 121: return {128, 2};
    default: return {0, 0};
  }
}

const char* nvidia_arch_name(int major, int minor) {
  switch (major) {
    case 6: return "pascal";
    case 7: return minor >= 5 ? "turing" : "volta";
    case 8: return minor == 9 ? "ada" : "ampere";
    case 9: return "hopper";
    case 10: case 11: case 12: return "blackwell";
    default: return "";
  }
}

}  // namespace hetbench
