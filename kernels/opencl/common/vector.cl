// Vector helpers for kernels with a tunable vector width VW (1, 2, 4, 8 or 16):
// realv is REAL widened to VW lanes, LOADV/STOREV move VW consecutive elements, HSUM
// adds the lanes of a realv.
#if VW == 1
typedef REAL realv;
#define LOADV(i, p) ((p)[i])
#define STOREV(v, i, p) ((p)[i] = (v))
#define HSUM(v) (v)
#else
typedef HB_CAT(REAL, VW) realv;
#define LOADV(i, p) HB_CAT(vload, VW)(i, p)
#define STOREV(v, i, p) HB_CAT(vstore, VW)(v, i, p)
#define HSUM2(v) ((v).s0 + (v).s1)
#define HSUM4(v) (HSUM2((v).lo) + HSUM2((v).hi))
#define HSUM8(v) (HSUM4((v).lo) + HSUM4((v).hi))
#define HSUM16(v) (HSUM8((v).lo) + HSUM8((v).hi))
#define HSUM(v) HB_CAT(HSUM, VW)(v)
#endif
