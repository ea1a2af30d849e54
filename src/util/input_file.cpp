#include "util/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench {

namespace {

// Half the host's memory: a stream longer than that is not an input hetbench can hold
// alongside the problem built from it.
std::size_t stream_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2
                               : std::size_t{1} << 32;
}

}  // namespace

InputBytes read_input_bytes(const std::string& path) {
  auto fail = [&](const char* what) {
    throw InputError(fmt::format("{}: cannot {} the file ({})", path, what, std::strerror(errno)));
  };
  // O_NONBLOCK: opening a FIFO nobody writes to would otherwise wait for a writer forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail("open");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail("inspect");
  if (S_ISDIR(st.st_mode)) throw InputError(fmt::format("{}: is a directory, not a file", path));
  const bool regular = S_ISREG(st.st_mode), fifo = S_ISFIFO(st.st_mode);
  if (!regular && !fifo)
    throw InputError(fmt::format("{}: is a {}, not a file: give a regular file (or a pipe)", path,
                                 S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device" : "socket"));
  // Reads block again from here: a pipe's writer may be slower than we are.
  if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) fail("read");
  const std::size_t limit = regular ? static_cast<std::size_t>(st.st_size) + 1 : stream_limit();
  // One spare byte, so that a regular file reaches end-of-file without a regrowth.
  std::size_t cap = regular ? static_cast<std::size_t>(st.st_size) + 1 : std::size_t{1} << 20;
  InputBytes b{std::make_unique_for_overwrite<char[]>(cap), 0};
  for (;;) {
    if (b.size == cap) {
      // A regular file that grows while it is read is read as it grows, up to the limit.
      if (!regular && cap >= limit)
        throw InputError(fmt::format("{}: the stream is longer than {} bytes (half the host's memory)", path, limit));
      auto bigger = std::make_unique_for_overwrite<char[]>(cap * 2);
      std::memcpy(bigger.get(), b.data.get(), b.size);
      b.data = std::move(bigger);
      cap *= 2;
    }
    const ssize_t n = ::read(fd, b.data.get() + b.size, cap - b.size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("read");
    if (n == 0) break;
    b.size += static_cast<std::size_t>(n);
  }
  return b;
}

}  // namespace hetbench
