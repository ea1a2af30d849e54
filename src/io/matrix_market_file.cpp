#include "io/matrix_market_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "hetbench/error.hpp"

namespace hetbench::mm {

FileBytes read_whole_file(const std::string& path) {
  auto fail = [&](const char* what) {
    throw InputError(path + ": cannot " + what + " the file (" + std::strerror(errno) + ")");
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("open");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail("inspect");
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory, not a Matrix Market file");
  // One spare byte, so that a regular file reaches end-of-file without a regrowth.
  size_t cap = (S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : size_t{1} << 20) + 1;
  FileBytes b{std::make_unique_for_overwrite<char[]>(cap), 0};
  for (;;) {
    if (b.size == cap) {
      auto bigger = std::make_unique_for_overwrite<char[]>(cap * 2);
      std::memcpy(bigger.get(), b.data.get(), b.size);
      b.data = std::move(bigger);
      cap *= 2;
    }
    ssize_t n = ::read(fd, b.data.get() + b.size, cap - b.size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("read");
    if (n == 0) break;
    b.size += static_cast<size_t>(n);
  }
  return b;
}

}  // namespace hetbench::mm
