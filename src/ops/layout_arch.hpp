// Which `Arch` section of a layout file a device takes (docs/layouts.md, "One file, a
// layout per architecture"): the point of Majeti et al.'s layout file is that each
// architecture gets its own layout from one file. A device answers to several names, from
// the most specific (its compute capability or architecture, its API) to the least (its
// type, "any"); the section with the most specific name the device answers to wins.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "ops/layout.hpp"

namespace hetbench {

struct ArchName {
  std::string name;  // lower case, as a section may be named
  int rank = 0;  // 5 architecture or compute capability, 4 API, 3 SIMD level, 2 vendor or ISA family, 1 type, 0 any
  std::string why;   // "compute capability 9.0", "its type is gpu"
};
// The names `d` answers to, most specific first.
std::vector<ArchName> arch_names(const DeviceInfo& d);

struct ArchMatch {
  std::size_t index = 0;  // the section taken (the first when none matches)
  bool matched = false;
  std::string why;  // "Arch 'gpu': the device's type is gpu", or why none matched
};
// The section of `f` for `d`: the one named after the device's most specific name (case
// does not matter; between two of one rank, the first in the file).
ArchMatch match_arch(const LayoutFile& f, const DeviceInfo& d);

struct DeviceLayout {
  std::string token;  // the size's input with the section: "my.layout#gpu"
  ArchMatch match;
};
// For a size naming a layout file of several sections without choosing one ("N@FILE"):
// the section `d` takes. nullopt for a size naming no layout, one section ("FILE#NAME"),
// every section ("FILE#*", expanded when the size was parsed) or a file of one section.
std::optional<DeviceLayout> layout_for_device(const std::string& op, const Sizes& s, const DeviceInfo& d);

// Writes `section` into the layout file at `path` as the section of device `d`, named after
// the device's most specific name (an NVIDIA GPU's architecture, a CPU device's API):
// replacing a section of that name, else added after the others; a missing file is
// created, in the form its name asks for (.json or the text grammar). Throws InputError
// for an existing file that does not parse. Returns the section's name.
std::string write_device_section(const std::string& path, ArchLayout section, const DeviceInfo& d);

}  // namespace hetbench
