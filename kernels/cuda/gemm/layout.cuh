// 16-byte vector moves for the CUDA gemm variants (after portable/gemm/layout.k, which
// gives the operands' index macros A_AT, B_AT, C_AT).
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
