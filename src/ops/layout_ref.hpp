// A data layout as the tuning database remembers it (docs/tuning-db.md, "Layouts"): by a
// name and the SHA-256 of its file's content, so an entry means the same layout on
// another machine or from another working folder, and an edited or deleted file is
// noticed instead of silently standing for something else.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "hetbench/op.hpp"

namespace hetbench {

struct LayoutRef {
  std::string name;    // a shipped layout's name ("aos"), or a file's name ("my.layout")
  std::string arch;    // the Arch section, for a file of several; else empty
  std::string file;    // the file's absolute path when it was recorded
  std::string sha256;  // of the file's content
  bool shipped = false;  // from layouts/<op>/, found again by name wherever hetbench is installed
  bool operator==(const LayoutRef&) const = default;
};

// Whether an op places its records by a layout (its sizes are SIZE@LAYOUT tokens): an op
// that takes its problems from --size and ships layouts in layouts/<op>/.
bool op_has_layouts(const Op& op);

// The layout a problem's size names (Sizes::input of a layout op); nullopt when it names
// none (the op's default, every field its own array). Throws InputError for a file that
// cannot be read.
std::optional<LayoutRef> layout_ref(const std::string& op, const Sizes& s);

// The Sizes::input that names `ref` now: the shipped name, else the recorded file. Throws
// InputError saying what is wrong when the file is gone or its content changed since.
std::string layout_token(const std::string& op, const LayoutRef& ref);

// "aos", "my.layout#gpu (sha256 1a2b3c4d5e6f)"
std::string describe(const LayoutRef& ref);
nlohmann::json to_json(const LayoutRef& ref);
// Throws Error naming `where` and the key.
LayoutRef layout_ref_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace hetbench
