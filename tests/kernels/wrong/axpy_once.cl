// Deliberately wrong, and only after its first run: the last element is written by the
// first call alone (a counter in scratch memory, zeroed once when the variant is prepared,
// remembers it), as a kernel that caches a result between calls would behave. The first
// run validates; only a validated run after the timed repetitions can catch it.
kernel void axpy_once(const uint n, const REAL a, global const REAL* x, global const REAL* y, global REAL* r,
                      global int* calls) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  if (i + 1 == n) {
    if (calls[0]++ > 0) return;
  }
  r[i] = a * x[i] + y[i];
}
