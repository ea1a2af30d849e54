// Tile status of the decoupled look-back as CUB keeps it (cub::ScanTileState): the flag
// (0 not yet published, 1 the tile's aggregate, 2 its inclusive prefix) and the value in
// one word, written with one store and read with one load. A reader that sees the flag
// sees the value of the same store, so neither side needs the fence pair that separate
// flag and value arrays need. 4-byte REALs (S, I32): one 64-bit word, flag in the high
// half. 8-byte REALs (D): a 16-byte aligned pair {flag, value} moved with one st.v2.u64 /
// ld.v2.u64, as CUB's 16-byte TxnWord is (the hardware moves an aligned 16-byte vector
// access of one thread in one L2 transaction). Relaxed at GPU scope: coherent in L2,
// never served from a stale L1 line while a look-back polls.
#if defined(HB_PREC_D)
#define HB_SW 2  // 64-bit words per tile status
typedef ulonglong2 hb_status_t;
__device__ __forceinline__ void hb_status_store(hb_status_t* s, unsigned flag, REAL v) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(s), "l"(static_cast<unsigned long long>(flag)),
               "l"(__double_as_longlong(v))
               : "memory");
}
__device__ __forceinline__ unsigned hb_status_load(const hb_status_t* s, REAL* v) {
  unsigned long long f, b;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(f), "=l"(b) : "l"(s) : "memory");
  *v = __longlong_as_double(static_cast<long long>(b));
  return static_cast<unsigned>(f);
}
#else
#define HB_SW 1
typedef unsigned long long hb_status_t;
__device__ __forceinline__ unsigned hb_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned hb_bits(unsigned v) { return v; }
__device__ __forceinline__ void hb_from_bits(float* r, unsigned b) { *r = __uint_as_float(b); }
__device__ __forceinline__ void hb_from_bits(unsigned* r, unsigned b) { *r = b; }
__device__ __forceinline__ void hb_status_store(hb_status_t* s, unsigned flag, REAL v) {
  const unsigned long long w = (static_cast<unsigned long long>(flag) << 32) | hb_bits(v);
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(s), "l"(w) : "memory");
}
__device__ __forceinline__ unsigned hb_status_load(const hb_status_t* s, REAL* v) {
  unsigned long long w;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(s) : "memory");
  hb_from_bits(v, static_cast<unsigned>(w));
  return static_cast<unsigned>(w >> 32);
}
#endif
