// The loop nest that omp_target_gemm.cpp and acc_gemm.cpp put under their directives
// (macros, because a directive must be followed by the loop itself, and the two files are
// compiled with different flags). One nest serves every layout: op(A)(i,p) is
// A[i*sai + p*sap] and op(B)(p,j) is B[p*sbp + j*sbj]. j is the fastest index of the
// collapsed (i, j) space, so neighbouring lanes touch neighbouring B and C elements.
#pragma once

#include "directive_gemm.hpp"

// A directive assembled from macro arguments (the data clauses differ by form).
#define HB_PRAGMA(x) _Pragma(#x)

// Plain locals (not members of `g`) for the regions to capture; C0 is the mapped form's
// initial C on the host.
#define HB_GEMM_LOCALS(T, g)                                                                     \
  const std::size_t m = (g).m, n = (g).n, k = (g).k;                                             \
  const std::size_t sai = (g).ta ? 1 : k, sap = (g).ta ? m : 1, sbp = (g).tb ? 1 : n,            \
                    sbj = (g).tb ? k : 1;                                                        \
  const std::size_t na = m * k, nb = k * n, nc = m * n;                                          \
  const bool plain = (g).plain;                                                                  \
  const T alpha = static_cast<T>((g).alpha), beta = static_cast<T>((g).beta);                    \
  const T* A = static_cast<const T*>((g).A);                                                     \
  const T* B = static_cast<const T*>((g).B);                                                     \
  const T* C0 = static_cast<const T*>((g).C0);                                                   \
  T* C = static_cast<T*>((g).C)

// C = alpha*op(A)*op(B) + beta*CIN; with beta = 0 CIN is not read (BLAS's rule: in the
// plain form C holds the engine's poison and there is no C0); INNER: a directive for the
// k loop, or nothing.
#define HB_GEMM_NEST(INNER, CIN)                                                                 \
  for (std::size_t i = 0; i < m; ++i)                                                            \
    for (std::size_t j = 0; j < n; ++j) {                                                        \
      T s = 0;                                                                                   \
      INNER                                                                                      \
      for (std::size_t p = 0; p < k; ++p) s += A[i * sai + p * sap] * B[p * sbp + j * sbj];      \
      C[i * n + j] = beta != T(0) ? alpha * s + beta * CIN[i * n + j] : alpha * s;               \
    }
