// OpenACC GEMM (GCC 12, -fopenacc -foffload=nvptx-none; a shared library of its own:
// docs/directive-gemm.md). The loop nest is gemm_nest.hpp's, one instantiation
// per vector length, since GCC's nvptx back end takes vector_length only as a constant.
#include <openacc.h>

#include <stdexcept>
#include <string>

#include "gemm_nest.hpp"

namespace hetbench::directive {

namespace {

// One multiply under `parallel loop` with the data clauses given (gangs, V, the nest's
// locals in scope).
#define HB_ACC_GEMM(CLAUSES, CIN)                                                                    \
  HB_PRAGMA(acc parallel loop gang vector collapse(2) num_gangs(gangs) vector_length(V) CLAUSES) \
  HB_GEMM_NEST(_Pragma("acc loop seq"), CIN)

template <class T, int V>
void run(const GemmArgs& g) {
  HB_GEMM_LOCALS(T, g);
  const int gangs = g.teams;
  acc_set_device_num(g.device, acc_device_nvidia);
  switch (g.data) {
    case Data::device:
      for (int it = 0; it < g.iter; ++it) {
        HB_ACC_GEMM(deviceptr(A, B, C), C)
      }
      return;
    case Data::per_iteration:
      // Copied in by each construct, C copied out after each: no data region.
      for (int it = 0; it < g.iter; ++it) {
        if (plain) {
          HB_ACC_GEMM(copyin(A[0:na], B[0:nb]) deviceptr(C), C)
        } else {
          HB_ACC_GEMM(copyin(A[0:na], B[0:nb], C0[0:nc]) deviceptr(C), C0)
        }
        acc_memcpy_from_device(g.c_host, C, nc * sizeof(T));
      }
      return;
    case Data::once:
      // The walk-through's data region around its loop: present in every construct.
      if (plain) {
        HB_PRAGMA(acc data copyin(A[0:na], B[0:nb]))
        for (int it = 0; it < g.iter; ++it) {
          HB_ACC_GEMM(present(A[0:na], B[0:nb]) deviceptr(C), C)
        }
      } else {
        HB_PRAGMA(acc data copyin(A[0:na], B[0:nb], C0[0:nc]))
        for (int it = 0; it < g.iter; ++it) {
          HB_ACC_GEMM(present(A[0:na], B[0:nb], C0[0:nc]) deviceptr(C), C0)
        }
      }
      acc_memcpy_from_device(g.c_host, C, nc * sizeof(T));
      return;
  }
}

template <class T>
void dispatch(const GemmArgs& a) {
  switch (a.threads) {
    case 32: return run<T, 32>(a);
    case 64: return run<T, 64>(a);
    case 128: return run<T, 128>(a);
    case 256: return run<T, 256>(a);
    case 512: return run<T, 512>(a);
  }
  throw std::invalid_argument("OpenACC GEMM: vector_length " + std::to_string(a.threads) +
                              " is not one of those compiled (32, 64, 128, 256, 512)");
}

}  // namespace

std::string acc_unavailable(int device) {
  const int n = acc_get_num_devices(acc_device_nvidia);
  if (n == 0)
    return "no OpenACC device: acc_get_num_devices(acc_device_nvidia) == 0 (libgomp-plugin-nvptx.so.1 not found "
           "beside libgomp, or no NVIDIA driver); skipped rather than run on the host";
  if (device < 0 || device >= n)
    return "OpenACC device " + std::to_string(device) + " does not exist: acc_get_num_devices(acc_device_nvidia) == " +
           std::to_string(n);
  return "";
}

void acc_gemm(const GemmArgs& a) { a.dbl ? dispatch<double>(a) : dispatch<float>(a); }

}  // namespace hetbench::directive
