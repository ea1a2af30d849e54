// OpenMP target offload GEMM (GCC 12, -fopenmp -foffload=nvptx-none; a shared library of
// its own: docs/directive-gemm.md). The loop nest is gemm_nest.hpp's.
#include <omp.h>

#include <stdexcept>
#include <string>

#include "gemm_nest.hpp"

namespace hetbench::directive {

namespace {

// Simd: GCC's nvptx back end maps an OpenMP thread to a warp and simd lanes to its 32
// threads, so without `simd` one lane in 32 works (the SIMD parameter shows the cost).
template <class T, bool Simd>
void run(const GemmArgs& g) {
  HB_GEMM_LOCALS(T, g);
  (void)C0, (void)na, (void)nb;
  const int dev = g.device, teams = g.teams, threads = g.threads;
  if (g.data_region) {
    if constexpr (Simd) {
#pragma omp target teams distribute parallel for simd collapse(2) device(dev) num_teams(teams) \
    thread_limit(threads) is_device_ptr(A, B, C)
      HB_GEMM_NEST(, C)
    } else {
#pragma omp target teams distribute parallel for collapse(2) device(dev) num_teams(teams) thread_limit(threads) \
    is_device_ptr(A, B, C)
      HB_GEMM_NEST(, C)
    }
    return;
  }
  // The mapped form: A, B and the initial C copied in by the construct, C copied out after.
  if constexpr (Simd) {
#pragma omp target teams distribute parallel for simd collapse(2) device(dev) num_teams(teams) \
    thread_limit(threads) map(to : A[0:na], B[0:nb], C0[0:nc]) is_device_ptr(C)
    HB_GEMM_NEST(, C0)
  } else {
#pragma omp target teams distribute parallel for collapse(2) device(dev) num_teams(teams) thread_limit(threads) \
    map(to : A[0:na], B[0:nb], C0[0:nc]) is_device_ptr(C)
    HB_GEMM_NEST(, C0)
  }
  if (omp_target_memcpy(g.c_host, C, nc * sizeof(T), 0, 0, omp_get_initial_device(), dev) != 0)
    throw std::runtime_error("omp_target_memcpy of C to the host failed");
}

}  // namespace

std::string omp_target_unavailable(int device) {
  const int n = omp_get_num_devices();
  if (n == 0)
    return "no OpenMP offload device: omp_get_num_devices() == 0 (libgomp-plugin-nvptx.so.1 not found beside "
           "libgomp, or no NVIDIA driver); skipped rather than run on the host";
  if (device < 0 || device >= n)
    return "OpenMP offload device " + std::to_string(device) + " does not exist: omp_get_num_devices() == " +
           std::to_string(n);
  return "";
}

void omp_target_gemm(const GemmArgs& a) {
  if (a.dbl)
    a.simd ? run<double, true>(a) : run<double, false>(a);
  else
    a.simd ? run<float, true>(a) : run<float, false>(a);
}

}  // namespace hetbench::directive
