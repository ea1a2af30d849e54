// Row-major GEMM operands and 16-byte vector moves, shared by the CUDA gemm variants.
// TA and TB (0 or 1) come from the metadata "defines" per point. A_AT(i, p) is op(A)[i][p]
// (op(A) is m×k; A is stored k×m when TA), B_AT(p, j) is op(B)[p][j] (op(B) is k×n; B is
// stored n×k when TB). 32-bit indices: each matrix must have fewer than 2^32 elements
// (a constraint in every variant), which keeps address arithmetic to single IMADs.
#if TA
#define A_AT(i, p) A[(p) * m + (i)]
#else
#define A_AT(i, p) A[(i) * k + (p)]
#endif
#if TB
#define B_AT(p, j) B[(j) * k + (p)]
#else
#define B_AT(p, j) B[(p) * n + (j)]
#endif
#define C_AT(i, j) C[(i) * n + (j)]

// W consecutive elements between memory and registers, as one W-wide access (W = 1, 2 or,
// in S, 4; W * sizeof(REAL) <= 16). The address must be aligned to W elements: callers
// guarantee it with a per-point define that checks the leading dimension.
template <int W>
__device__ __forceinline__ void hb_ldv(const REAL* p, REAL* r) {
  if constexpr (W == 1) {
    r[0] = p[0];
  } else if constexpr (W == 2) {
    const REAL2 v = *reinterpret_cast<const REAL2*>(p);
    r[0] = v.x, r[1] = v.y;
  } else {
    static_assert(W == 4 && sizeof(REAL) == 4, "vector width must be 1, 2 or (float) 4");
    const float4 v = *reinterpret_cast<const float4*>(p);
    r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
  }
}
template <int W>
__device__ __forceinline__ void hb_stv(REAL* p, const REAL* r) {
  if constexpr (W == 1) {
    p[0] = r[0];
  } else if constexpr (W == 2) {
    REAL2 v;
    v.x = r[0], v.y = r[1];
    *reinterpret_cast<REAL2*>(p) = v;
  } else {
    static_assert(W == 4 && sizeof(REAL) == 4, "vector width must be 1, 2 or (float) 4");
    *reinterpret_cast<float4*>(p) = make_float4(r[0], r[1], r[2], r[3]);
  }
}
