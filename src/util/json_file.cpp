#include "util/json_file.hpp"
#include "util/input_file.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench {

std::string read_text_file(const std::string& path) {
  const auto b = read_input_bytes(path);
  return std::string(b.data.get(), b.size);
}

std::string json_error_text(const nlohmann::json::exception& e) {
  std::string w = e.what();
  auto p = w.find("] ");
  return p == std::string::npos ? w : w.substr(p + 2);
}

void throw_invalid_json(const std::string& path, const nlohmann::json::exception& e) {
  throw Error(fmt::format("{}: invalid JSON: {}", path, json_error_text(e)));
}

}  // namespace hetbench
