// Seeded inputs. A counter-based generator, so element i depends only on (seed, i):
// data is the same whatever the thread count, and generation runs in parallel.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

namespace hetbench {

// A seed for an experiment that was given none: 48 bits, so that it survives a trip
// through any JSON reader that keeps numbers as doubles.
inline std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32 | rd()) & 0xFFFFFFFFFFFFull;
}

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [-1, -1/16] ∪ [1/16, 1]: random signs (so sums cancel) and never zero or
// tiny, so that a skipped element or an unwritten output cannot hide.
inline double random_value(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  std::uint64_t r = splitmix64(seed ^ splitmix64(stream * 0x632BE59BD9B4E019ull + i));
  double mag = 0.0625 + 0.9375 * static_cast<double>(r >> 11) * 0x1p-53;
  return (r & 1) ? -mag : mag;
}

// Fills out[0..n) with random_value(seed, stream, i) converted to T, in parallel.
template <class T>
void fill_random(T* out, std::size_t n, std::uint64_t seed, std::uint64_t stream) {
#pragma omp parallel for schedule(static) if (n > 65536)
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(random_value(seed, stream, i));
}

// Fills out[0..n) with random bytes, eight from each draw of (seed, stream, i / 8): the
// payload of a copy, where every bit pattern is as good as another.
inline void fill_random_bytes(unsigned char* out, std::size_t n, std::uint64_t seed, std::uint64_t stream) {
  const std::size_t words = (n + 7) / 8;
#pragma omp parallel for schedule(static) if (words > 65536)
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t r = splitmix64(seed ^ splitmix64(stream * 0x632BE59BD9B4E019ull + w));
    for (std::size_t b = 0; b < 8 && 8 * w + b < n; ++b, r >>= 8) out[8 * w + b] = static_cast<unsigned char>(r);
  }
}

// The lo word of a random double-word value (DF, DD) whose hi word is `hi`:
// lo = hi·r·2^-(p+1), with r = random_value of an independent stream and p the word's
// significand bits. So 2^-(p+5)|hi| <= |lo| <= 2^-(p+1)|hi|: lo is never zero, has a
// random sign and random significand bits, and |lo| <= ulp(hi)/2 with hi = RN(hi + lo)
// (a power-of-two hi with |lo| at the top of the range is a tie that rounds to hi).
template <class W>
W random_lo(W hi, std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  static const W scale = std::ldexp(W(1), -(std::numeric_limits<W>::digits + 1));
  return static_cast<W>(hi * static_cast<W>(random_value(seed, stream + (std::uint64_t{1} << 40), i))) * scale;
}

// `count` distinct indices of [0, n), sorted, always with 0 and n−1; all when n ≤ count:
// the elements a validation checks when checking all of them would cost more than the
// point itself (GEMM's rows and columns, MRI-Q's voxels, N-body's bodies).
inline std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed,
                                               std::uint64_t stream) {
  std::set<std::size_t> s;
  if (n <= count) {
    for (std::size_t i = 0; i < n; ++i) s.insert(i);
  } else {
    s.insert(0);
    s.insert(n - 1);
    for (std::uint64_t i = 0; s.size() < count; ++i) s.insert(splitmix64(seed ^ splitmix64(stream * 0x9E37ull + i)) % n);
  }
  return {s.begin(), s.end()};
}

}  // namespace hetbench
