// Index macros for row-major GEMM operands; TA and TB (0 or 1) come from the metadata
// "defines" per point. A_AT(i, p) is op(A)[i][p] (op(A) is m×k; A is stored k×m when
// TA), B_AT(p, j) is op(B)[p][j] (op(B) is k×n; B is stored n×k when TB). 32-bit
// indices: each matrix must have fewer than 2^32 elements.
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
