// C = alpha * A * B^T + beta * C, square row-major matrices of order n, one element of C
// per work-item: the first of GEMMbench's three NT kernels (Lokhmotov, "GEMMbench: a
// framework for reproducible and collaborative benchmarking of matrix multiplication"),
// written for hetbench. Rows of A and of B are both read along k, so consecutive
// work-items (consecutive j) read rows of B n elements apart.
kernel void gemm(global const float* restrict A, global const float* restrict B, global float* restrict C,
                 float alpha, float beta, uint n) {
  const uint j = get_global_id(0), i = get_global_id(1);
  float acc = 0.0f;
  for (uint k = 0; k < n; ++k) acc += A[i * n + k] * B[j * n + k];
  C[i * n + j] = alpha * acc + beta * C[i * n + j];
}
