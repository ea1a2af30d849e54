// nvcc side of the splitting-scheme kernels: kernels/cuda/gemm/ozaki.cuh and launchers
// (grid-stride loops: a fixed grid serves every size).
#include <cmath>
#include <cstring>

#include "../../../kernels/cuda/gemm/ozaki.cuh"
#include "backends/cuda/ozaki_kernels.hpp"

namespace hetbench::ozaki_launch {

namespace {
unsigned blocks(unsigned long long n) {
  const unsigned long long b = (n + 255) / 256;
  return static_cast<unsigned>(b < 65535 ? (b ? b : 1) : 65535);
}
ozk::Out out(const Out& o) {
  return {o.C, o.kind, o.df, o.count, o.alpha_hi, o.alpha_lo, o.beta_hi, o.beta_lo};
}
}  // namespace

void gather(const void* src, int kind, unsigned long long count, double* dst, int rows, int k, long long sr,
            long long sp, cudaStream_t s) {
  ozk::gather<<<blocks(1ull * rows * k), 256, 0, s>>>(src, kind, count, dst, rows, k, sr, sp);
}
void exponents(const double* X, int rows, int k, int* e, cudaStream_t s) {
  ozk::exponents<<<rows, 256, 0, s>>>(X, k, e);
}
void fixed_slices(const double* X, const int* e, int rows, int valid, int k, int kp, int bits, int slices, int type,
                  void* o, cudaStream_t s) {
  ozk::fixed_slices<<<blocks(1ull * rows * kp), 256, 0, s>>>(X, e, rows, valid, k, kp, bits, slices, type, o);
}
void residues(const double* X, const int* e, int rows, int valid, int k, int kp, int P, int L, const int* mod,
              signed char* o, cudaStream_t s) {
  ozk::residues<<<blocks(1ull * rows * kp), 256, 0, s>>>(X, e, rows, valid, k, kp, P, L, mod, o);
}
void split_terms(const double* X, int rows, int k, int kp, int bits, int slices, int type, void* o, cudaStream_t s) {
  ozk::split_terms<<<blocks(1ull * rows * kp), 256, 0, s>>>(X, rows, k, kp, bits, slices, type, o);
}
void accumulate(const float* P, unsigned long long count, int shift, double* acc, cudaStream_t s) {
  ozk::accumulate<<<blocks(count), 256, 0, s>>>(P, count, shift, acc);
}
void finish_fixed(const double* acc, const int* ea, const int* eb, int m, int n, int ld, const Out& o, cudaStream_t s) {
  ozk::finish_fixed<<<blocks(1ull * m * n), 256, 0, s>>>(acc, ea, eb, m, n, ld, out(o));
}
void finish_crt(const int* res, int L, const int* mod, const int* inv, int P, const int* ea, const int* eb, int m, int n,
                int ld, unsigned long long plane, const Out& o, cudaStream_t s) {
  ozk::finish_crt<<<blocks(1ull * m * n), 256, 0, s>>>(res, L, mod, inv, P, ea, eb, m, n, ld, plane, out(o));
}

}  // namespace hetbench::ozaki_launch
