#include "kernel/kernel_prelude.hpp"

#include <fmt/format.h>

namespace hetbench {

// REAL is the scalar word: float for S and DF, double for D and DD. Double-word kernels
// (HB_PREC_DF, HB_PREC_DD, and HB_DW for either) keep each element as two REALs (hi, lo)
// and do their arithmetic with kernels/opencl/include/dfdd.cl or include/hetbench/dfdd.hpp.
std::string kernel_prelude(const std::string& language, Precision p) {
  const auto& pi = info(p);
  const bool dw = p == Precision::DF || p == Precision::DD;
  const bool wide = p == Precision::D || p == Precision::DD;
  std::string s = fmt::format("// hetbench prelude\n#define HB_PREC_{} 1\n#define REAL {}\n", pi.name, pi.real_type);
  if (dw) s += "#define HB_DW 1\n";
  if (language == "opencl") {
    if (pi.needs_fp64) s += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    for (int w : {2, 3, 4, 8, 16}) s += fmt::format("#define REAL{} {}{}\n", w, pi.real_type, w);
    s += "#define REAL1 REAL\n";
  } else if (language == "cuda") {
    // 16-byte vectors of words: float4 for S and DF, double2 for D and DD.
    s += wide ? "#define REAL2 double2\n#define REALV16 double2\n#define VEC16 2\n"
              : "#define REAL2 float2\n#define REAL4 float4\n#define REALV16 float4\n#define VEC16 4\n";
  }
  s += "#define HB_CAT_(a, b) a##b\n#define HB_CAT(a, b) HB_CAT_(a, b)\n";
  return s;
}

}  // namespace hetbench
