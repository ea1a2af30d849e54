// Reading a file the user named as input (a matrix, a spec, metadata, a layout) whole:
// only what a file can be, and never more than memory can hold.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace hetbench {

struct InputBytes {
  std::unique_ptr<char[]> data;
  std::size_t size = 0;
};

// The bytes of `path`, read with one allocation for a regular file. Throws InputError
// naming the file when it cannot be opened or read, or is not a file one can read to its
// end: a directory, a device (/dev/zero, /dev/urandom would fill memory or never end) or
// a socket. A pipe or FIFO is read until its writer closes it, up to half the host's
// memory; one without a writer reads as empty instead of waiting for one.
InputBytes read_input_bytes(const std::string& path);

}  // namespace hetbench
