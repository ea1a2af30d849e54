// Launchers of the splitting-scheme kernels (kernels/cuda/gemm/ozaki.cuh), compiled by
// nvcc in ozaki_kernels.cu; every call is asynchronous on stream s.
#pragma once

#include <cuda_runtime.h>

#include "hetbench/dfdd.hpp"
#include "kernels/common/ozaki.h"

namespace hetbench::ozaki_launch {

struct Out {
  void* C;
  int kind;  // 1 binary64 (D, DF @d64), 2 DF interleaved, 3 DF two planes
  int df;
  unsigned long long count;
  double alpha_hi, alpha_lo, beta_hi, beta_lo;
};

using oz::Operand;

// Chunks of k per block in the row-maxima pass, and the scratch it needs (doubles).
int max_chunks(int rows, int k);
// e[r] with max_p |X[r, p]| < 2^e[r]: parallel maxima over max_chunks(rows, k) chunks
// into partial (that many x rows doubles), then one thread per row.
void exponents(const Operand& x, double* partial, int* e, cudaStream_t s);
// Scheme I: the s slice planes (rows x kp halves each) of x's rows scaled by 2^-e.
void fixed_split(const Operand& x, const int* e, int rows, int kp, int bits, int slices, int type, void* out,
                 cudaStream_t s);
// Scheme II: the L residue planes (rows x kp each, `plane` bytes apart) of x's P-bit integers.
void crt_split(const Operand& x, const int* e, int rows, int kp, int P, const oz::CrtConst& c, signed char* out,
               unsigned long long plane, cudaStream_t s);
// Split: the s term planes (x.rows x kp each, binary32 or BF16).
void float_split(const Operand& x, int kp, int bits, int slices, int type, void* out, cudaStream_t s);
// Scheme I: acc += 2^-shift P_t, t = 0..terms-1 in order (P_t at P + t * count).
void accumulate(const float* P, unsigned long long count, int terms, int shift, double* acc, cudaStream_t s);
void finish_fixed(const double* acc, const int* ea, const int* eb, int m, int n, int ld, const Out& o, cudaStream_t s);
// Scheme II: C from the L int32 products (m x ld each, `plane` elements apart).
void crt_finish(const int* res, unsigned long long plane, int ld, const oz::CrtConst& c, int P, const int* ea,
                const int* eb, int m, int n, const Out& o, cudaStream_t s);

}  // namespace hetbench::ozaki_launch
