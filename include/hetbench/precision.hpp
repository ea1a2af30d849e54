// Precisions: storage type, arithmetic and the unit roundoff that error bounds use.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hetbench {

// I32: two's-complement 32-bit integers, added with unsigned (wrap-around) semantics;
// exact, so u = 0. Only ops that list it (scan, reduce) accept it.
enum class Precision { S, D, DF, DD, I32 };

struct PrecisionInfo {
  Precision p;
  const char* name;       // "S", "D", "DF", "DD", "I32"
  std::size_t bytes;      // bytes of one stored element (interleaved hi/lo for DF/DD)
  double u;               // unit roundoff used by the error bounds (0: exact)
  const char* real_type;  // OpenCL C / CUDA scalar type of one word (I32: uint, wrapping)
  bool needs_fp64;        // device must support binary64
};

const PrecisionInfo& info(Precision p);
inline const char* name(Precision p) { return info(p).name; }
// Throws hetbench::Error naming the value when it is not one of S, D, DF, DD, I32.
Precision parse_precision(std::string_view s);
std::vector<Precision> parse_precisions(std::string_view list);

// Classical γ_n = n·u/(1 − n·u) while n·u ≤ 1/2; beyond that the bound n·u of
// Jeannerod & Rump (SIAM J. Matrix Anal. Appl. 34(2), 2013), which holds for any n and
// any evaluation order of a sum or inner product.
double gamma_n(double n, double u);

}  // namespace hetbench
