// Layout files (docs/layouts.md), text or JSON: parsed, written back as JSON, and each
// Arch section resolved against a record set like nbody's (two operands, a real and an
// integer field) and its memory placement computed for a few record counts.
#include <string>

#include "hetbench/error.hpp"
#include "ops/layout.hpp"
#include "targets/targets.hpp"

namespace hetbench::fuzz {

void layout(std::string_view data) {
  const std::string text(data);
  const bool json = !text.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos &&
                    text[text.find_first_not_of(" \t\r\n")] == '{';
  static const FieldSet fields{{"body", {"x", "y", "z", "m"}, false, "n"}, {"acc", {"ax", "ay", "az"}, false, "n"},
                               {"idx", {"id"}, true, "n"}};
  try {
    const LayoutFile f = json ? parse_layout_json(text, "fuzz.json") : parse_layout_text(text, "fuzz.layout");
    (void)to_json_text(f);
    for (std::size_t a = 0; a < f.archs.size(); ++a) {
      try {
        const Layout l = resolve_layout(f, a, fields, "fuzz");
        (void)l.describe();
        (void)l.scratch_bytes(8);
        (void)layout_accessors(l, fields);
        for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}})
          for (const auto& o : l.operands) (void)o.words(n);
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
}

}  // namespace hetbench::fuzz
