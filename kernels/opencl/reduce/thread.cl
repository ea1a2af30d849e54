// The work-item part of the OpenCL reduce variants: VW-wide vector loads over a
// grid-stride loop; the last n % VW elements go to the first work-items. Each element
// is transformed (HB_MAP) and combined (HB_RED, VRED lane by lane) as the reduce's kind
// says (portable/common/reduce_kind.k); a work-item without elements holds
// HB_RED_START. I32 adds as uint (wraps) and takes maxima as int.
#if FN == 3
#ifndef HB_PREC_I32
#define VRED(a, b) max(a, b)
#elif VW == 1
#define VRED(a, b) as_uint(max(as_int(a), as_int(b)))
#else
#define VRED(a, b) HB_CAT(as_uint, VW)(max(HB_CAT(as_int, VW)(a), HB_CAT(as_int, VW)(b)))
#endif
#else
#define VRED(a, b) ((a) + (b))
#endif
#if VW == 1
#define HRED(v) (v)
#else
#define HRED2(v) HB_RED((v).s0, (v).s1)
#define HRED4(v) HB_RED(HRED2((v).lo), HRED2((v).hi))
#define HRED8(v) HB_RED(HRED4((v).lo), HRED4((v).hi))
#define HRED16(v) HB_RED(HRED8((v).lo), HRED8((v).hi))
#define HRED(v) HB_CAT(HRED, VW)(v)
#endif

inline REAL reduce_thread(const uint n, global const REAL* restrict x) {
  const uint gid = get_global_id(0), stride = get_global_size(0), nv = n / VW;
  realv acc = (realv)(HB_RED_START(x));
  for (uint i = gid; i < nv; i += stride) {
    const realv v = LOADV(i, x);
    acc = VRED(acc, HB_MAP(v));
  }
  REAL s = HRED(acc);
  const uint t = nv * VW + gid;
  if (t < n) s = HB_RED(s, HB_MAP(x[t]));
  return s;
}
