// Double-word arithmetic in OpenCL C 1.2: DF as float2 (x = hi, y = lo) and
// DD as double2. Same algorithms, operation order and results (bit for bit)
// as include/hetbench/dfdd.hpp; bounds and sources in docs/precision.md.
//
// Build WITHOUT -cl-fast-relaxed-math, -cl-mad-enable, -cl-unsafe-math-optimizations
// and -cl-denorms-are-zero: they allow fusing a*b+c into a mad of unspecified
// rounding, reassociation (two_sum's error term folds to 0) and flushing of
// subnormal lo parts. OpenCL C contracts a*b+c by default, hence the pragma;
// every product below that feeds an addition already goes through fma().
//
// Select the add (and mad) variant at build time: -DDFDD_SLOPPY_ADD picks the
// seed 001 sloppy add for df_add/dd_add/df_mad/dd_mad, otherwise accurate.
#ifndef HETBENCH_DFDD_CL
#define HETBENCH_DFDD_CL

#pragma OPENCL FP_CONTRACT OFF

// ---- DF (binary32 pairs) -------------------------------------------------------

inline float2 df_make(float hi, float lo) { return (float2)(hi, lo); }
inline float2 df_from_float(float f) { return (float2)(f, 0.0f); }

// Knuth TwoSum, 6 ops.
inline float2 df_two_sum(float a, float b) {
  float s = a + b;
  float bb = s - a;
  float e = (a - (s - bb)) + (b - bb);
  return (float2)(s, e);
}

// Dekker Fast2Sum, needs exponent(a) >= exponent(b), 3 ops.
inline float2 df_fast_two_sum(float a, float b) {
  float s = a + b;
  float e = b - (s - a);
  return (float2)(s, e);
}

inline float2 df_two_prod(float a, float b) {
  float p = a * b;
  float e = fma(a, b, -p);
  return (float2)(p, e);
}

// Joldes-Muller-Popescu 2017 Alg. 6, <= 3u^2/(1-4u), 20 ops.
inline float2 df_add_accurate(float2 x, float2 y) {
  float2 s = df_two_sum(x.x, y.x);
  float2 t = df_two_sum(x.y, y.y);
  float c = s.y + t.x;
  float2 v = df_fast_two_sum(s.x, c);
  float w = t.y + v.y;
  return df_fast_two_sum(v.x, w);
}

// Seed 001 DFadd (JMP Alg. 5), 11 ops; no bound under cancellation.
inline float2 df_add_sloppy(float2 x, float2 y) {
  float2 s = df_two_sum(x.x, y.x);
  float v = s.y + (x.y + y.y);
  return df_fast_two_sum(s.x, v);
}

// JMP 2017 Alg. 12, <= 5u^2 (4u^2 per Muller-Rideau 2022), 9 ops.
inline float2 df_mul(float2 x, float2 y) {
  float2 c = df_two_prod(x.x, y.x);
  float tl0 = x.y * y.y;
  float tl1 = fma(x.x, y.y, tl0);
  float cl2 = fma(x.y, y.x, tl1);
  float cl3 = c.y + cl2;
  return df_fast_two_sum(c.x, cl3);
}

// Seed 001 DFmul, 5 ops, no published bound.
inline float2 df_mul_sloppy(float2 x, float2 y) {
  float v = x.x * y.y;
  float t = fma(x.y, y.x, v);
  float hi = fma(x.x, y.x, t);
  float e = fma(x.x, y.x, -hi);
  return (float2)(hi, e + t);
}

// JMP 2017 Alg. 9, DF times float, <= 2u^2, 6 ops.
inline float2 df_mul_f(float2 x, float y) {
  float2 c = df_two_prod(x.x, y);
  float cl3 = fma(x.y, y, c.y);
  return df_fast_two_sum(c.x, cl3);
}

inline float2 df_mad_accurate(float2 a, float2 b, float2 c) { return df_add_accurate(df_mul(a, b), c); }
// Seed 001's 16-op multiply-add.
inline float2 df_mad_sloppy(float2 a, float2 b, float2 c) { return df_add_sloppy(df_mul_sloppy(a, b), c); }

#ifdef DFDD_SLOPPY_ADD
#define df_add df_add_sloppy
#define df_mad df_mad_sloppy
#else
#define df_add df_add_accurate
#define df_mad df_mad_accurate
#endif

// ---- DD (binary64 pairs) and double <-> DF -------------------------------------

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

inline double2 dd_make(double hi, double lo) { return (double2)(hi, lo); }
inline double2 dd_from_double(double d) { return (double2)(d, 0.0); }
inline double dd_to_double(double2 x) { return x.x + x.y; }

inline double2 dd_two_sum(double a, double b) {
  double s = a + b;
  double bb = s - a;
  double e = (a - (s - bb)) + (b - bb);
  return (double2)(s, e);
}

inline double2 dd_fast_two_sum(double a, double b) {
  double s = a + b;
  double e = b - (s - a);
  return (double2)(s, e);
}

inline double2 dd_two_prod(double a, double b) {
  double p = a * b;
  double e = fma(a, b, -p);
  return (double2)(p, e);
}

inline double2 dd_add_accurate(double2 x, double2 y) {
  double2 s = dd_two_sum(x.x, y.x);
  double2 t = dd_two_sum(x.y, y.y);
  double c = s.y + t.x;
  double2 v = dd_fast_two_sum(s.x, c);
  double w = t.y + v.y;
  return dd_fast_two_sum(v.x, w);
}

inline double2 dd_add_sloppy(double2 x, double2 y) {
  double2 s = dd_two_sum(x.x, y.x);
  double v = s.y + (x.y + y.y);
  return dd_fast_two_sum(s.x, v);
}

inline double2 dd_mul(double2 x, double2 y) {
  double2 c = dd_two_prod(x.x, y.x);
  double tl0 = x.y * y.y;
  double tl1 = fma(x.x, y.y, tl0);
  double cl2 = fma(x.y, y.x, tl1);
  double cl3 = c.y + cl2;
  return dd_fast_two_sum(c.x, cl3);
}

inline double2 dd_mul_sloppy(double2 x, double2 y) {
  double v = x.x * y.y;
  double t = fma(x.y, y.x, v);
  double hi = fma(x.x, y.x, t);
  double e = fma(x.x, y.x, -hi);
  return (double2)(hi, e + t);
}

inline double2 dd_mul_d(double2 x, double y) {
  double2 c = dd_two_prod(x.x, y);
  double cl3 = fma(x.y, y, c.y);
  return dd_fast_two_sum(c.x, cl3);
}

inline double2 dd_mad_accurate(double2 a, double2 b, double2 c) { return dd_add_accurate(dd_mul(a, b), c); }
inline double2 dd_mad_sloppy(double2 a, double2 b, double2 c) { return dd_add_sloppy(dd_mul_sloppy(a, b), c); }

#ifdef DFDD_SLOPPY_ADD
#define dd_add dd_add_sloppy
#define dd_mad dd_mad_sloppy
#else
#define dd_add dd_add_accurate
#define dd_mad dd_mad_accurate
#endif

// Dekker split with 2^29+1 (seed 001): hi = d rounded to 24 bits. The pragma
// above keeps t - d from becoming fma(c, d, -d), which would give hi = d, lo = 0.
inline float2 df_from_double(double d) {
  double t = 536870913.0 * d;
  double h = t - (t - d);
  double l = d - h;
  return (float2)((float)h, (float)l);
}

inline double df_to_double(float2 x) { return (double)x.x + (double)x.y; }

#endif  // cl_khr_fp64

#endif  // HETBENCH_DFDD_CL
