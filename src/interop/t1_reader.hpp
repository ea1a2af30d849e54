// Reading T1 documents strictly: each error names the file and the key's path
// (KernelSpecification.Arguments[2].Size), and expressions come back from Python.
#pragma once

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hetbench/error.hpp"
#include "interop/python_expr.hpp"

namespace hetbench {

class T1Reader {
 public:
  explicit T1Reader(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(fmt::format("{}: key '{}': {}", file_, key, what));
  }
  const nlohmann::ordered_json& at(const nlohmann::ordered_json& j, const std::string& key, const std::string& path) const {
    if (!j.is_object() || !j.contains(key)) fail(path, "missing");
    return j[key];
  }
  std::string str(const nlohmann::ordered_json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, "expected a string");
    return j.get<std::string>();
  }
  std::string expr(const nlohmann::ordered_json& j, const std::string& path) const {
    if (j.is_number_integer()) return std::to_string(j.get<long long>());
    try {
      return from_python(str(j, path));
    } catch (const Error& e) {
      fail(path, e.what());
    }
  }

 private:
  std::string file_;
};

}  // namespace hetbench
