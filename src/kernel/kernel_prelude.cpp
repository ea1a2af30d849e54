#include "kernel/kernel_prelude.hpp"

#include <fmt/format.h>

namespace hetbench {

namespace {

// The words that differ between OpenCL C and CUDA C++, so that one kernel source under
// kernels/portable/ serves both (as CLBlast maps its OpenCL kernels to CUDA). Kernels
// are written in OpenCL C's vocabulary (uint, get_global_id, ...) with these macros for
// qualifiers; CUDA gets the index functions as inline device functions, which fold to
// the special registers once the dimension is a constant.
constexpr const char* kOpenclWords = R"(#define HB_KERNEL kernel
#define HB_LAUNCH_BOUNDS(...)
#define HB_GLOBAL_PTR global
#define HB_LOCAL_MEM local
#define HB_LOCAL_PTR local
#define HB_RESTRICT restrict
#define HB_INLINE inline
#define HB_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define HB_LDG(p) (*(p))
)";

constexpr const char* kCudaWords = R"(#define HB_KERNEL extern "C" __global__
#define HB_LAUNCH_BOUNDS(...) __launch_bounds__(__VA_ARGS__)
#define HB_GLOBAL_PTR
#define HB_LOCAL_MEM __shared__
#define HB_LOCAL_PTR
#define HB_RESTRICT __restrict__
#define HB_INLINE __device__ __forceinline__
#define HB_BARRIER() __syncthreads()
#define HB_LDG(p) __ldg(p)
typedef unsigned int uint;
typedef unsigned long long ulong;
__device__ __forceinline__ uint hb_dim3(const dim3 v, const int d) { return d == 0 ? v.x : d == 1 ? v.y : v.z; }
__device__ __forceinline__ uint hb_dim3(const uint3 v, const int d) { return d == 0 ? v.x : d == 1 ? v.y : v.z; }
__device__ __forceinline__ uint get_local_id(const int d) { return hb_dim3(threadIdx, d); }
__device__ __forceinline__ uint get_group_id(const int d) { return hb_dim3(blockIdx, d); }
__device__ __forceinline__ uint get_local_size(const int d) { return hb_dim3(blockDim, d); }
__device__ __forceinline__ uint get_num_groups(const int d) { return hb_dim3(gridDim, d); }
__device__ __forceinline__ uint get_global_id(const int d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }
__device__ __forceinline__ uint get_global_size(const int d) { return get_num_groups(d) * get_local_size(d); }
)";

}  // namespace

// REAL is the scalar word: float for S and DF, double for D and DD, uint for I32 (whose
// int32 elements are added with wrap-around, so unsigned arithmetic gives their bits). Double-word kernels
// (HB_PREC_DF, HB_PREC_DD, and HB_DW for either) keep each element as two REALs (hi, lo)
// and do their arithmetic with kernels/common/dfdd.h.
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
    s += kOpenclWords;
  } else if (language == "cuda") {
    // 16-byte vectors of words: float4 for S and DF, double2 for D and DD.
    if (p == Precision::I32)
      s += "#define REAL2 uint2\n#define REAL4 uint4\n#define REALV16 uint4\n#define VEC16 4\n";
    else
      s += wide ? "#define REAL2 double2\n#define REALV16 double2\n#define VEC16 2\n"
                : "#define REAL2 float2\n#define REAL4 float4\n#define REALV16 float4\n#define VEC16 4\n";
    s += kCudaWords;
  }
  s += "#define HB_CAT_(a, b) a##b\n#define HB_CAT(a, b) HB_CAT_(a, b)\n";
  return s;
}

}  // namespace hetbench
