// One read of a whole Matrix Market file into memory: parsing from memory is what makes
// 100+ MB/s possible.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace hetbench::mm {

struct FileBytes {
  std::unique_ptr<char[]> data;
  size_t size = 0;
};

// Throws InputError naming the file when it cannot be opened or read, or is a directory.
FileBytes read_whole_file(const std::string& path);

}  // namespace hetbench::mm
