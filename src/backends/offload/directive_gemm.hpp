// Directive-based GEMM on an NVIDIA GPU: OpenMP target offload and OpenACC, compiled
// ahead of time by GCC 12's NVPTX offloading (docs/directive-gemm.md). Each lives in a
// shared library of its own (GCC 12's mkoffload takes -fopenmp or -fopenacc, not both in
// one link), so this header is plain C++ and names no CUDA or OpenMP type.
#pragma once

#include <cstddef>
#include <string>

namespace hetbench::directive {

// Where A, B and C are, and what the timed call moves (docs/directive-gemm.md).
enum class Data {
  // The engine's device buffers of the CUDA primary context that libgomp shares
  // (is_device_ptr / deviceptr): compute only, C updated in place.
  device,
  // Host arrays A, B (and C0) copied in and C copied out around every multiply, as a
  // program without a data region does: the walk-through's MatrixMult called nIter times.
  per_iteration,
  // A data region around the loop (`acc data` / `omp target data`): copied in once,
  // the multiplies run on what is present, C copied out once after the last.
  once,
};

// Row-major C = alpha*op(A)*op(B) + beta*C0, as the gemm op (src/ops/gemm.cpp); plain:
// C = op(A)*op(B) (C0 unused, nothing of C read), `iter` times.
struct GemmArgs {
  std::size_t m = 0, n = 0, k = 0;
  bool ta = false, tb = false, dbl = false, plain = false;
  int iter = 1;
  double alpha = 0, beta = 0;
  int device = 0;          // the OpenMP / OpenACC device number (the CUDA ordinal)
  int teams = 0;           // num_teams / num_gangs
  int threads = 0;         // thread_limit / vector_length
  bool simd = true;        // OpenMP only: `simd` on the loop (GCC maps OpenMP threads to warps)
  // device: A, B, C device pointers. per_iteration and once: A, B and C0 are host arrays
  // the call copies in, the result is written into the device C and copied back into the
  // host array c_host, so the call moves what a stand-alone program moves.
  Data data = Data::device;
  const void *A = nullptr, *B = nullptr, *C0 = nullptr;
  void* C = nullptr;
  void* c_host = nullptr;
};

// Empty when `device` is an offload device libgomp can run on; otherwise why not (no
// device at all, e.g. libgomp-plugin-nvptx.so.1 not found, or no such device number).
// The variants are skipped then: GCC would otherwise run the region on the host.
std::string omp_target_unavailable(int device);
std::string acc_unavailable(int device);

void omp_target_gemm(const GemmArgs& a);
void acc_gemm(const GemmArgs& a);

// The vector lengths the OpenACC variant is compiled for: GCC's nvptx back end fixes
// vector_length at compile time (a run-time value is ignored with a warning).
inline constexpr int acc_vector_lengths[] = {32, 64, 128, 256, 512};

}  // namespace hetbench::directive
