// C = alpha * A * B^T + beta * C, square row-major matrices of order n, four elements of C
// per work-item as SGEMM_NT_1x4, with the work-group's rows of A staged in local memory,
// a chunk of k at a time, behind a barrier: the third of GEMMbench's three NT kernels,
// written for hetbench. The local size is the entry's tunable (LWS_J, LWS_I), unknown
// when the kernel is written, so the chunk depth is what a fixed local array holds for the
// group's LWS_I rows; the last chunk may be shorter (any n that dj divides).
#define STAGED 1024  // floats of local memory

kernel void gemm(global const float* restrict A, global const float* restrict B, global float* restrict C,
                 float alpha, float beta, uint n) {
  local float As[STAGED];
  const uint j0 = get_global_id(0) * 4, i = get_global_id(1);
  const uint lj = get_local_id(0), li = get_local_id(1);
  const uint cols = get_local_size(0), rows = get_local_size(1);
  const uint chunk = STAGED / rows, row0 = get_group_id(1) * rows;
  float4 acc = (float4)(0.0f);
  for (uint k0 = 0; k0 < n; k0 += chunk) {
    const uint depth = min(chunk, n - k0);
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous chunk is read by every work-item
    for (uint t = li * cols + lj; t < rows * depth; t += rows * cols)
      As[t] = A[(row0 + t / depth) * n + k0 + t % depth];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < depth; ++k) {
      const float a = As[li * depth + k];
      const uint kk = k0 + k;
      acc += a * (float4)(B[j0 * n + kk], B[(j0 + 1) * n + kk], B[(j0 + 2) * n + kk], B[(j0 + 3) * n + kk]);
    }
  }
  global float* c = C + i * n + j0;
  c[0] = alpha * acc.x + beta * c[0];
  c[1] = alpha * acc.y + beta * c[1];
  c[2] = alpha * acc.z + beta * c[2];
  c[3] = alpha * acc.w + beta * c[3];
}
