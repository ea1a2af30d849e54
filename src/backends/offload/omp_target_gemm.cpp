// OpenMP target offload GEMM (GCC 12, -fopenmp -foffload=nvptx-none; a shared library of
// its own: docs/directive-gemm.md). The loop nest is gemm_nest.hpp's.
#include <omp.h>

#include <stdexcept>
#include <string>

#include "gemm_nest.hpp"

namespace hetbench::directive {

namespace {

// One multiply under `target teams distribute parallel for [simd]` with the map clauses
// given (dev, teams, threads and the nest's locals in scope). Simd: GCC's nvptx back end
// maps an OpenMP thread to a warp and simd lanes to its 32 threads, so without `simd`
// one lane in 32 works (the SIMD parameter shows the cost).
#define HB_OMP_GEMM(CLAUSES, CIN)                                                                          \
  if constexpr (Simd) {                                                                                    \
    HB_PRAGMA(omp target teams distribute parallel for simd collapse(2) device(dev) num_teams(teams)       \
                  thread_limit(threads) CLAUSES)                                                           \
    HB_GEMM_NEST(, CIN)                                                                                    \
  } else {                                                                                                 \
    HB_PRAGMA(omp target teams distribute parallel for collapse(2) device(dev) num_teams(teams)            \
                  thread_limit(threads) CLAUSES)                                                           \
    HB_GEMM_NEST(, CIN)                                                                                    \
  }

template <class T>
void copy_back(const GemmArgs& g, const T* C, std::size_t nc) {
  if (omp_target_memcpy(g.c_host, C, nc * sizeof(T), 0, 0, omp_get_initial_device(), g.device) != 0)
    throw std::runtime_error("omp_target_memcpy of C to the host failed");
}

template <class T, bool Simd>
void run(const GemmArgs& g) {
  HB_GEMM_LOCALS(T, g);
  const int dev = g.device, teams = g.teams, threads = g.threads;
  switch (g.data) {
    case Data::device:
      for (int it = 0; it < g.iter; ++it) {
        HB_OMP_GEMM(is_device_ptr(A, B, C), C)
      }
      return;
    case Data::per_iteration:
      // Mapped (copied in) by each construct, C copied out after each: no data region.
      for (int it = 0; it < g.iter; ++it) {
        if (plain) {
          HB_OMP_GEMM(map(to : A[0:na], B[0:nb]) is_device_ptr(C), C)
        } else {
          HB_OMP_GEMM(map(to : A[0:na], B[0:nb], C0[0:nc]) is_device_ptr(C), C0)
        }
        copy_back(g, C, nc);
      }
      return;
    case Data::once:
      // A target data region around the loop: the constructs' maps find A, B (and C0)
      // present and copy nothing.
      if (plain) {
        HB_PRAGMA(omp target data device(dev) map(to : A[0:na], B[0:nb]))
        for (int it = 0; it < g.iter; ++it) {
          HB_OMP_GEMM(map(to : A[0:na], B[0:nb]) is_device_ptr(C), C)
        }
      } else {
        HB_PRAGMA(omp target data device(dev) map(to : A[0:na], B[0:nb], C0[0:nc]))
        for (int it = 0; it < g.iter; ++it) {
          HB_OMP_GEMM(map(to : A[0:na], B[0:nb], C0[0:nc]) is_device_ptr(C), C0)
        }
      }
      copy_back(g, C, nc);
      return;
  }
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
