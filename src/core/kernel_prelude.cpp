#include "core/kernel_prelude.hpp"

#include <fmt/format.h>

namespace hetbench {

std::string kernel_prelude(const std::string& language, Precision p) {
  const auto& pi = info(p);
  std::string s = fmt::format("// hetbench prelude\n#define HB_PREC_{} 1\n#define REAL {}\n", pi.name, pi.real_type);
  if (language == "opencl") {
    if (pi.needs_fp64) s += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    for (int w : {2, 3, 4, 8, 16}) s += fmt::format("#define REAL{} {}{}\n", w, pi.real_type, w);
    s += "#define REAL1 REAL\n";
  } else if (language == "cuda") {
    // 16-byte vectors: float4 for S, double2 for D.
    s += p == Precision::S ? "#define REAL2 float2\n#define REAL4 float4\n#define REALV16 float4\n#define VEC16 4\n"
                           : "#define REAL2 double2\n#define REALV16 double2\n#define VEC16 2\n";
  }
  s += "#define HB_CAT_(a, b) a##b\n#define HB_CAT(a, b) HB_CAT_(a, b)\n";
  return s;
}

}  // namespace hetbench
