// A 3x3 weighted sum of a (ny + 2) x (nx + 2) image, written in the style of Kernel Tuner's
// examples (its parameters are macros; blocks of block_size_x x block_size_y work-items,
// each computing tile_size_x outputs along x), for hetbench's tests of `kernel import-t1`
// on a T1 file without hetbench's block (blur3.json).
__kernel void blur3(__global float* out, __global const float* in, __global const float* w, int nx, int ny) {
  const int y = get_group_id(1) * block_size_y + get_local_id(1);
  const int x0 = get_group_id(0) * block_size_x * tile_size_x + get_local_id(0);
  if (y >= ny) return;
  for (int t = 0; t < tile_size_x; ++t) {
    const int x = x0 + t * block_size_x;
#ifdef SKIP_LAST_COLUMN
    if (x >= nx - 1) continue;  // the defect a test plants: the last column stays unwritten
#else
    if (x >= nx) continue;
#endif
    float s = 0.0f;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) s += w[3 * i + j] * in[(y + i) * (nx + 2) + x + j];
    out[y * nx + x] = s;
  }
}
