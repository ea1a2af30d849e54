// CSR SpMV in DF and DD (val, x, y double-words in the storage SOA gives; alpha and beta as
// words): each product with the accurate multiply of common/dfdd.h (JMP Alg. 12), the row
// sum (lane loop and shuffle tree) with the sloppy add (JMP Alg. 5, 11 operations against
// the accurate add's 20: in DD the row sum's additions were most of the kernel's
// instructions), α and β with the accurate ones. The sloppy add errs by at most
// u^2(3 + u)/(1 - u)·(|x| + |y|), below the accurate add's 3u^2/(1 - 4u) relative bound,
// so docs/validation.md's per-row bound holds unchanged (its derivation, "SpMV in DF and
// DD", says why a bound relative to |x| + |y| suffices). Two kernels over one source:
//   scalar: one thread per row (portable/spmv/scalar.k);
//   vector: TPR threads per row (a power of two, 2..64) in a grid-stride loop over blocks of
//           WG / TPR rows, double-word warp-shuffle sums (two warps through shared memory
//           for TPR = 64), as vector.cu.
// Elements are loaded and stored with common/dw16.cuh's hb_load_elem/hb_store_elem (AoS: one
// 8- or 16-byte access; SoA: a word from each plane), x with its hb_ldg_elem. As in BLAS,
// y is not read when beta is 0.

// s + a·b for the row sum.
__device__ __forceinline__ hb_dw hb_spmv_mad(const hb_dw a, const hb_dw b, const hb_dw s) {
  return hetbench::add_sloppy(hetbench::mul_accurate(a, b), s);
}

__device__ __forceinline__ hb_dw hb_spmv_axpby(const hb_dw alpha, const hb_dw s, const hb_dw beta, const hb_dw y0) {
  const hb_dw as = hetbench::mul_accurate(alpha, s);
  return beta.hi == REAL(0) ? as : hetbench::add_accurate(as, hetbench::mul_accurate(beta, y0));
}

extern "C" __global__ void __launch_bounds__(WG)
    spmv_dw_scalar(const unsigned rows, const unsigned cols, const unsigned nnz, const int* __restrict__ row_ptr,
                   const int* __restrict__ col, const REAL* __restrict__ val, const REAL* __restrict__ x,
                   const REAL alpha_hi, const REAL alpha_lo, const REAL beta_hi, const REAL beta_lo,
                   REAL* __restrict__ y) {
  const unsigned r = blockIdx.x * WG + threadIdx.x;
  if (r >= rows) return;
  const hb_dw beta{beta_hi, beta_lo};
  const hb_dw y0 = beta.hi != REAL(0) ? hb_load_elem(y, rows, r) : hb_dw{0, 0};  // in flight with the row
  const int end = row_ptr[r + 1];
  hb_dw s{0, 0};
#pragma unroll 4
  for (int j = row_ptr[r]; j < end; ++j) s = hb_spmv_mad(hb_load_elem(val, nnz, j), hb_ldg_elem(x, cols, col[j]), s);
  hb_store_elem(y, rows, r, hb_spmv_axpby(hb_dw{alpha_hi, alpha_lo}, s, beta, y0));
}

#ifdef TPR  // dw_vector only
#if TPR < 2 || TPR > 64 || (TPR & (TPR - 1)) != 0
#error "TPR must be a power of two in 2..64"
#endif
extern "C" __global__ void __launch_bounds__(WG)
    spmv_dw_vector(const unsigned rows, const unsigned cols, const unsigned nnz, const int* __restrict__ row_ptr,
                   const int* __restrict__ col, const REAL* __restrict__ val, const REAL* __restrict__ x,
                   const REAL alpha_hi, const REAL alpha_lo, const REAL beta_hi, const REAL beta_lo,
                   REAL* __restrict__ y) {
  constexpr unsigned W = TPR < 32 ? TPR : 32;  // shuffle width
  constexpr unsigned rows_per_block = WG / TPR;
  const unsigned lane = threadIdx.x % TPR;
  const hb_dw alpha{alpha_hi, alpha_lo}, beta{beta_hi, beta_lo};
#if TPR == 64
  __shared__ hb_dw warp_sum[WG / 32];
#endif
  // Uniform across the block (it depends only on blockIdx), so __syncthreads inside is safe.
  for (unsigned base = blockIdx.x * rows_per_block; base < rows; base += gridDim.x * rows_per_block) {
    const unsigned r = base + threadIdx.x / TPR;
    const bool writer = lane == 0 && r < rows;
    const hb_dw y0 = writer && beta.hi != REAL(0) ? hb_load_elem(y, rows, r) : hb_dw{0, 0};
    hb_dw s{0, 0};
    if (r < rows) {
      const int end = row_ptr[r + 1];
#pragma unroll 2
      for (int j = row_ptr[r] + (int)lane; j < end; j += TPR)
        s = hb_spmv_mad(hb_load_elem(val, nnz, j), hb_ldg_elem(x, cols, __ldg(col + j)), s);
    }
#pragma unroll
    for (unsigned off = W / 2; off > 0; off >>= 1)
      s = hetbench::add_sloppy(
          s, hb_dw{__shfl_down_sync(0xffffffffu, s.hi, off, W), __shfl_down_sync(0xffffffffu, s.lo, off, W)});
#if TPR == 64
    if ((threadIdx.x & 31u) == 0) warp_sum[threadIdx.x / 32] = s;
    __syncthreads();
    if (lane == 0) s = hetbench::add_sloppy(s, warp_sum[threadIdx.x / 32 + 1]);
    __syncthreads();  // warp_sum is rewritten by the next row block
#endif
    if (writer) hb_store_elem(y, rows, r, hb_spmv_axpby(alpha, s, beta, y0));
  }
}
#endif
