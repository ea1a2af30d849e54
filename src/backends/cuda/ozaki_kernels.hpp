// Launchers of the splitting-scheme kernels (kernels/cuda/gemm/ozaki.cuh), compiled by
// nvcc in ozaki_kernels.cu; every call is asynchronous on stream s.
#pragma once

#include <cuda_runtime.h>

namespace hetbench::ozaki_launch {

struct Out {
  void* C;
  int kind;  // 1 binary64 (D, DF @d64), 2 DF interleaved, 3 DF two planes
  int df;
  unsigned long long count;
  double alpha_hi, alpha_lo, beta_hi, beta_lo;
};

void gather(const void* src, int kind, unsigned long long count, double* dst, int rows, int k, long long sr,
            long long sp, cudaStream_t s);
void exponents(const double* X, int rows, int k, int* e, cudaStream_t s);
void fixed_slices(const double* X, const int* e, int rows, int valid, int k, int kp, int bits, int slices, int type,
                  void* out, cudaStream_t s);
void residues(const double* X, const int* e, int rows, int valid, int k, int kp, int P, int L, const int* mod,
              signed char* out, cudaStream_t s);
void split_terms(const double* X, int rows, int k, int kp, int bits, int slices, int type, void* out, cudaStream_t s);
void accumulate(const float* P, unsigned long long count, int shift, double* acc, cudaStream_t s);
void finish_fixed(const double* acc, const int* ea, const int* eb, int m, int n, int ld, const Out& o, cudaStream_t s);
void finish_crt(const int* res, int L, const int* mod, const int* inv, int P, const int* ea, const int* eb, int m, int n,
                int ld, unsigned long long plane, const Out& o, cudaStream_t s);

}  // namespace hetbench::ozaki_launch
