// C = alpha * A * B^T + beta * C, square row-major matrices of order n, four consecutive
// elements of one row of C per work-item (dj = 4): each element of A read is used four
// times. The second of GEMMbench's three NT kernels, written for hetbench.
kernel void gemm(global const float* restrict A, global const float* restrict B, global float* restrict C,
                 float alpha, float beta, uint n) {
  const uint j0 = get_global_id(0) * 4, i = get_global_id(1);
  float4 acc = (float4)(0.0f);
  for (uint k = 0; k < n; ++k) {
    const float a = A[i * n + k];
    acc += a * (float4)(B[j0 * n + k], B[(j0 + 1) * n + k], B[(j0 + 2) * n + k], B[(j0 + 3) * n + k]);
  }
  global float* c = C + i * n + j0;
  c[0] = alpha * acc.x + beta * c[0];
  c[1] = alpha * acc.y + beta * c[1];
  c[2] = alpha * acc.z + beta * c[2];
  c[3] = alpha * acc.w + beta * c[3];
}
