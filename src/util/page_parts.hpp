// Work over a large range of host bytes on every core, and page faults taken that way.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>

namespace hetbench {

inline constexpr std::size_t kPageBytes = 4096;
// Below this a range is one thread's: a team's start-up would cost more than it saves.
inline constexpr std::size_t kParallelBytes = std::size_t{16} << 20;

// Calls part(offset, n) for contiguous parts of [0, bytes), one per thread, split on page
// boundaries (no page touched by two threads) as `omp parallel for schedule(static)`
// divides a loop; a range under kParallelBytes is one part on the calling thread. The
// first touch of a fresh buffer's pages is then spread over the cores instead of one
// thread faulting in gigabytes, and on a NUMA host each part's pages are placed near the
// thread that the OpenMP variants later read them with (STREAM's rule).
template <class F>
void for_page_parts(std::size_t bytes, F&& part) {
  if (bytes < kParallelBytes) return part(std::size_t{0}, bytes);
#pragma omp parallel
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num()), nt = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t pages = (bytes + kPageBytes - 1) / kPageBytes;
    const std::size_t b = std::min(bytes, pages * t / nt * kPageBytes);
    const std::size_t e = std::min(bytes, pages * (t + 1) / nt * kPageBytes);
    if (e > b) part(b, e - b);
  }
}

// Writes one byte of every page of [p, p + bytes) in for_page_parts' parts. A fresh host
// destination about to receive a download (CUDA's and PoCL's copies into pageable memory
// run on one thread) then has its pages faulted in, and zeroed by the kernel, in parallel
// instead of inside that copy. The bytes written are left for the copy to overwrite.
inline void first_touch(void* p, std::size_t bytes) {
  auto* c = static_cast<unsigned char*>(p);
  for_page_parts(bytes, [&](std::size_t off, std::size_t n) {
    for (std::size_t q = 0; q < n; q += kPageBytes) c[off + q] = 0;
  });
}

}  // namespace hetbench
