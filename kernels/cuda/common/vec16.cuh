// 16-byte vector helpers: REALV16 is float4 (S) or double2 (D), VEC16 its lane count.
// Buffers from cudaMalloc are 256-byte aligned, so vector i starts element VEC16*i and
// only the last n % VEC16 elements are left for a scalar tail.
__device__ __forceinline__ float4 hb_axpy16(float a, float4 x, float4 y) {
  return make_float4(a * x.x + y.x, a * x.y + y.y, a * x.z + y.z, a * x.w + y.w);
}
__device__ __forceinline__ double2 hb_axpy16(double a, double2 x, double2 y) {
  return make_double2(a * x.x + y.x, a * x.y + y.y);
}
// acc + x.y summed lane by lane; the lanes are added up once, at the end.
__device__ __forceinline__ float4 hb_fma16(float4 x, float4 y, float4 acc) {
  return make_float4(fmaf(x.x, y.x, acc.x), fmaf(x.y, y.y, acc.y), fmaf(x.z, y.z, acc.z), fmaf(x.w, y.w, acc.w));
}
__device__ __forceinline__ double2 hb_fma16(double2 x, double2 y, double2 acc) {
  return make_double2(fma(x.x, y.x, acc.x), fma(x.y, y.y, acc.y));
}
__device__ __forceinline__ float hb_hsum16(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ double hb_hsum16(double2 v) { return v.x + v.y; }
__device__ __forceinline__ float4 hb_zero16(float) { return make_float4(0.f, 0.f, 0.f, 0.f); }
__device__ __forceinline__ double2 hb_zero16(double) { return make_double2(0.0, 0.0); }
