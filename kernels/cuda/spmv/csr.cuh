// Explicit fused multiply-add for the vector CSR kernel (one overload per word type, so
// that the sum is one fma chain whatever REAL is).
__device__ __forceinline__ float hb_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double hb_fma(double a, double b, double c) { return fma(a, b, c); }
