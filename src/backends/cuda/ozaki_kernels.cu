// nvcc side of the splitting-scheme kernels: kernels/cuda/gemm/ozaki.cuh and launchers
// (element-wise kernels: grid-stride loops; the split kernels: one block per tile; the
// finish kernels: columns in x, rows in y).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cuda/gemm/ozaki.cuh"
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
// The split kernels' grid: one block per tile of 32 rows x 128 p.
dim3 tiles(int rows, int kp) {
  return dim3((kp + ozk::kTileP - 1) / ozk::kTileP, (rows + ozk::kTileRows - 1) / ozk::kTileRows);
}
}  // namespace

// About 1024 blocks of 32 rows x chunk in the maxima pass (8 per SM and more on a
// 132-SM H200), chunks of at least 512 elements.
int max_chunks(int rows, int k) {
  const int groups = (rows + 31) / 32, by_k = (k + 511) / 512;
  return std::max(1, std::min(by_k, (1024 + groups - 1) / groups));
}

void exponents(const Operand& x, double* partial, int* e, cudaStream_t s) {
  const int chunks = max_chunks(x.rows, x.k), chunk = ((x.k + chunks - 1) / chunks + 31) / 32 * 32;
  ozk::row_max<<<dim3((x.rows + 31) / 32, chunks), 256, 0, s>>>(x, chunk, partial);
  ozk::row_exponents<<<(x.rows + 255) / 256, 256, 0, s>>>(partial, chunks, x.rows, e);
}
void fixed_split(const Operand& x, const int* e, int rows, int kp, int bits, int slices, int type, void* o,
                 cudaStream_t s) {
  ozk::fixed_split<<<tiles(rows, kp), 256, 0, s>>>(x, e, rows, kp, bits, slices, type, o,
                                                    static_cast<unsigned long long>(rows) * kp);
}
void crt_split(const Operand& x, const int* e, int rows, int kp, int P, const oz::CrtConst& c, signed char* o,
               unsigned long long plane, cudaStream_t s) {
  ozk::crt_split<<<tiles(rows, kp), 256, 0, s>>>(x, e, rows, kp, P, c, o, plane);
}
void float_split(const Operand& x, int kp, int bits, int slices, int type, void* o, cudaStream_t s) {
  ozk::float_split<<<tiles(x.rows, kp), 256, 0, s>>>(x, x.rows, kp, bits, slices, type, o,
                                                      static_cast<unsigned long long>(x.rows) * kp);
}
void accumulate(const float* P, unsigned long long count, int terms, int shift, double* acc, cudaStream_t s) {
  ozk::accumulate<<<blocks(count), 256, 0, s>>>(P, count, terms, shift, acc);
}
void finish_fixed(const double* acc, const int* ea, const int* eb, int m, int n, int ld, const Out& o, cudaStream_t s) {
  ozk::finish_fixed<<<dim3((n + 255) / 256, std::min(m, 65535)), 256, 0, s>>>(acc, ea, eb, m, n, ld, out(o));
}
void crt_finish(const int* res, unsigned long long plane, int ld, const oz::CrtConst& c, int P, const int* ea,
                const int* eb, int m, int n, const Out& o, cudaStream_t s) {
  const dim3 grid((n + 255) / 256, std::min(m, 65535));
  switch (c.W) {
    case 1: ozk::crt_finish<1><<<grid, 256, 0, s>>>(res, plane, ld, c, P, ea, eb, m, n, out(o)); break;
    case 2: ozk::crt_finish<2><<<grid, 256, 0, s>>>(res, plane, ld, c, P, ea, eb, m, n, out(o)); break;
    case 3: ozk::crt_finish<3><<<grid, 256, 0, s>>>(res, plane, ld, c, P, ea, eb, m, n, out(o)); break;
    default: ozk::crt_finish<4><<<grid, 256, 0, s>>>(res, plane, ld, c, P, ea, eb, m, n, out(o)); break;
  }
}

}  // namespace hetbench::ozaki_launch
