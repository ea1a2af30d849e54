// Page faults taken on every core ahead of a copy that would take them on one thread.
#pragma once

#include <cstddef>

namespace hetbench {

// Writes one byte of every 4 KiB page of [p, p + bytes), each thread one contiguous part
// (as `omp parallel for schedule(static)` divides a loop). A fresh host destination about to
// receive a download (CUDA's and PoCL's copies into pageable memory run on one thread)
// then has its pages faulted in, and zeroed by the kernel, in parallel instead of inside
// that copy. The bytes written are left for the copy to overwrite.
inline void first_touch(void* p, std::size_t bytes) {
  constexpr std::size_t kPage = 4096;
  auto* c = static_cast<unsigned char*>(p);
  const std::size_t pages = bytes / kPage;
#pragma omp parallel for schedule(static) if (bytes >= (std::size_t{16} << 20))
  for (std::size_t i = 0; i < pages; ++i) c[i * kPage] = 0;
}

}  // namespace hetbench
