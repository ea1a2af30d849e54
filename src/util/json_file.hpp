// Reading JSON files with errors that name the file and say what is wrong, without
// nlohmann's exception prefix ("[json.exception.parse_error.101] ").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hetbench {

// The whole file as text (util/input_file.hpp: only what can be read to its end); throws
// InputError naming the file.
std::string read_text_file(const std::string& path);
// The message of a JSON exception, without the exception's id prefix.
std::string json_error_text(const nlohmann::json::exception& e);
[[noreturn]] void throw_invalid_json(const std::string& path, const nlohmann::json::exception& e);

// The parsed text of the file `path` (J = nlohmann::ordered_json keeps the file's key
// order); throws Error "<path>: invalid JSON: <what>", also for a number beyond binary64
// (1e400), which nlohmann reports as out_of_range rather than parse_error.
template <class J = nlohmann::json>
J parse_json_text(const std::string& text, const std::string& path) {
  try {
    return J::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw_invalid_json(path, e);
  }
}

// The parsed file, as parse_json_text.
template <class J = nlohmann::json>
J read_json_file(const std::string& path) {
  return parse_json_text<J>(read_text_file(path), path);
}

}  // namespace hetbench
