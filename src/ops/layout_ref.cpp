#include "ops/layout_ref.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "ops/layout_op.hpp"
#include "util/sha256.hpp"

namespace hetbench {

namespace fs = std::filesystem;

namespace {

std::string shipped_folder(const std::string& op) {
  try {
    return (fs::path(data_dir("layouts")) / op).string();
  } catch (const Error&) {
    return "";
  }
}

}  // namespace

bool op_has_layouts(const Op& op) {
  if (!op.input_kind().empty()) return false;
  const auto dir = shipped_folder(op.name());
  std::error_code ec;
  return !dir.empty() && fs::is_directory(dir, ec);
}

std::optional<LayoutRef> layout_ref(const std::string& op, const Sizes& s) {
  if (s.input.empty()) return std::nullopt;
  const auto [token, arch] = split_layout_token(s.input);
  const std::string path = layout_path(op, token);
  LayoutRef r;
  r.arch = arch;
  r.file = fs::weakly_canonical(fs::absolute(path)).string();
  r.shipped = path != token;  // layout_path found it by name in layouts/<op>/
  r.name = r.shipped ? token : fs::path(path).filename().string();
  try {
    r.sha256 = sha256_file(path);
  } catch (const Error& e) {
    throw InputError(e.what());
  }
  return r;
}

std::string layout_token(const std::string& op, const LayoutRef& ref) {
  const std::string suffix = ref.arch.empty() ? "" : "#" + ref.arch;
  std::string path = ref.file;
  if (ref.shipped) {
    try {
      path = layout_path(op, ref.name);
    } catch (const InputError&) {
      throw InputError(fmt::format("layout '{}' is no longer shipped in layouts/{}/", ref.name, op));
    }
  }
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw InputError(fmt::format("layout file '{}' is gone", path));
  std::string now;
  try {
    now = sha256_file(path);
  } catch (const Error& e) {
    throw InputError(e.what());
  }
  if (now != ref.sha256)
    throw InputError(fmt::format("layout file '{}' changed since it was tuned (sha256 {} then, {} now)", path,
                                 ref.sha256.substr(0, 12), now.substr(0, 12)));
  return (ref.shipped ? ref.name : path) + suffix;
}

std::string describe(const LayoutRef& ref) {
  const std::string name = ref.name + (ref.arch.empty() ? "" : "#" + ref.arch);
  return ref.shipped ? name : fmt::format("{} (sha256 {})", name, ref.sha256.substr(0, 12));
}

nlohmann::json to_json(const LayoutRef& ref) {
  nlohmann::json j = {{"name", ref.name}, {"file", ref.file}, {"sha256", ref.sha256}, {"shipped", ref.shipped}};
  if (!ref.arch.empty()) j["arch"] = ref.arch;
  return j;
}

LayoutRef layout_ref_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw Error(fmt::format("{}: key 'layout': expected an object", where));
  auto text = [&](const char* k, bool required) {
    if (!j.contains(k)) {
      if (required) throw Error(fmt::format("{}: key 'layout.{}': missing", where, k));
      return std::string();
    }
    if (!j[k].is_string()) throw Error(fmt::format("{}: key 'layout.{}': expected a string", where, k));
    return j[k].get<std::string>();
  };
  LayoutRef r;
  r.name = text("name", true);
  r.sha256 = text("sha256", true);
  r.file = text("file", false);
  r.arch = text("arch", false);
  if (j.contains("shipped")) {
    if (!j["shipped"].is_boolean()) throw Error(fmt::format("{}: key 'layout.shipped': expected true or false", where));
    r.shipped = j["shipped"].get<bool>();
  }
  if (r.sha256.size() != 64) throw Error(fmt::format("{}: key 'layout.sha256': expected 64 hex digits", where));
  return r;
}

}  // namespace hetbench
