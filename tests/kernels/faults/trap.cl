// Planted fault: a trap instruction (ud2 on x86: SIGILL where the kernel runs on the CPU).
kernel void trap(const uint n, global const REAL* x, global REAL* y) {
  const uint i = get_global_id(0);
  if (i == 0) __builtin_trap();
  if (i < n) y[i] = x[i];
}
