// One kernel whose parameter picks the outcome, for the export tests (tests/interop/test_interop.cpp):
// MODE 0 is right, 1 is wrong (validation fails), 2 does not build; 3 is excluded by a constraint.
#if MODE == 2
#error "MODE 2 is meant not to build"
#endif
kernel void axpy_modes(const uint n, const REAL a, global const REAL* x, global const REAL* y, global REAL* r) {
  const uint i = get_global_id(0);
  if (i >= n) return;
#if MODE == 1
  r[i] = a * x[i] - y[i];
#else
  r[i] = a * x[i] + y[i];
#endif
}
