// Vector CSR: TPR threads per row (a power of two, 2..64); a block takes WG / TPR rows at
// a time in a grid-stride loop. With VW > 1 each thread takes VW-aligned chunks of the
// row: a chunk inside the row is one vector load of val (float2/float4/double2) and of col
// (int2/int4), the at most two chunks cut by the row's ends are loaded element by element.
// Both kinds issue all their loads before the first use, so a short row costs one chain of
// latencies: row_ptr, then val/col, then x. Lanes combine by warp shuffles, and for
// TPR = 64 two warps through shared memory. The same source serves "adaptive", where TPR
// comes from the mean row length.
#if VW == 2
typedef REAL2 hb_realv;
typedef int2 hb_intv;
#elif VW == 4 && defined(HB_PREC_S)
typedef float4 hb_realv;
typedef int4 hb_intv;
#elif VW != 1
#error "VW must be 1, 2 or (S only) 4"
#endif
#if TPR < 2 || TPR > 64 || (TPR & (TPR - 1)) != 0
#error "TPR must be a power of two in 2..64"
#endif

#if VW > 1
// s + the dot of chunk c of the nonzeros, restricted to the row [start, end).
__device__ __forceinline__ REAL hb_chunk(REAL s, const int c, const int start, const int end,
                                         const REAL* __restrict__ val, const int* __restrict__ col,
                                         const REAL* __restrict__ x) {
  const int j = c * VW;
  REAL v[VW];
  int k[VW];
  if (j >= start && j + VW <= end) {
    const hb_realv vv = reinterpret_cast<const hb_realv*>(val)[c];
    const hb_intv kk = reinterpret_cast<const hb_intv*>(col)[c];
    v[0] = vv.x, v[1] = vv.y, k[0] = kk.x, k[1] = kk.y;
#if VW == 4
    v[2] = vv.z, v[3] = vv.w, k[2] = kk.z, k[3] = kk.w;
#endif
  } else {
#pragma unroll
    for (int e = 0; e < VW; ++e) {
      const bool in = j + e >= start && j + e < end;
      v[e] = in ? val[j + e] : REAL(0);
      k[e] = in ? col[j + e] : -1;
    }
  }
  REAL xv[VW];
#pragma unroll
  for (int e = 0; e < VW; ++e) xv[e] = k[e] >= 0 ? __ldg(x + k[e]) : REAL(0);
#pragma unroll
  for (int e = 0; e < VW; ++e) s = hb_fma(v[e], xv[e], s);
  return s;
}
#endif

extern "C" __global__ void __launch_bounds__(WG) spmv_vector(const unsigned rows, const int* __restrict__ row_ptr,
                                                             const int* __restrict__ col,
                                                             const REAL* __restrict__ val,
                                                             const REAL* __restrict__ x, const REAL alpha,
                                                             const REAL beta, REAL* __restrict__ y) {
  constexpr unsigned W = TPR < 32 ? TPR : 32;  // shuffle width
  constexpr unsigned rows_per_block = WG / TPR;
  const unsigned lane = threadIdx.x % TPR;
#if TPR == 64
  __shared__ REAL warp_sum[WG / 32];
#endif
  // Uniform across the block (it depends only on blockIdx), so __syncthreads inside is safe.
  for (unsigned base = blockIdx.x * rows_per_block; base < rows; base += gridDim.x * rows_per_block) {
    const unsigned r = base + threadIdx.x / TPR;
    const bool writer = lane == 0 && r < rows;
    const REAL y0 = writer && beta != REAL(0) ? y[r] : REAL(0);  // in flight with the row's loads
    REAL s = 0;
    if (r < rows) {
      const int start = row_ptr[r], end = row_ptr[r + 1];
#if VW == 1
#pragma unroll 4
      for (int j = start + (int)lane; j < end; j += TPR) s = hb_fma(val[j], __ldg(x + col[j]), s);
#else
      const int c1 = end / VW + (end % VW != 0);  // chunks [start / VW, c1) touch the row
#pragma unroll 2
      for (int c = start / VW + (int)lane; c < c1; c += TPR) s = hb_chunk(s, c, start, end, val, col, x);
#endif
    }
#pragma unroll
    for (unsigned off = W / 2; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off, W);
#if TPR == 64
    if ((threadIdx.x & 31u) == 0) warp_sum[threadIdx.x / 32] = s;
    __syncthreads();
    if (lane == 0) s += warp_sum[threadIdx.x / 32 + 1];
    __syncthreads();  // warp_sum is rewritten by the next row block
#endif
    if (writer) y[r] = beta != REAL(0) ? alpha * s + beta * y0 : alpha * s;
  }
}
