// Reading JSON files with errors that name the file and say what is wrong, without
// nlohmann's exception prefix ("[json.exception.parse_error.101] ").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hetbench {

// The whole file as text; throws Error "cannot read '<path>'".
std::string read_text_file(const std::string& path);
// The message of a JSON exception, without the exception's id prefix.
std::string json_error_text(const nlohmann::json::exception& e);
[[noreturn]] void throw_invalid_json(const std::string& path, const nlohmann::json::exception& e);

// The parsed file (J = nlohmann::ordered_json keeps the file's key order); throws Error
// "<path>: invalid JSON: <what>".
template <class J = nlohmann::json>
J read_json_file(const std::string& path) {
  const std::string text = read_text_file(path);
  try {
    return J::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw_invalid_json(path, e);
  }
}

}  // namespace hetbench
