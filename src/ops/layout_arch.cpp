#include "ops/layout_arch.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "ops/layout_op.hpp"
#include "ops/layout_ref.hpp"

namespace hetbench {

namespace {

std::string lower_arch_name(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The vendor's short name from what the driver reports ("NVIDIA Corporation",
// "GenuineIntel", "AuthenticAMD", "Advanced Micro Devices, Inc.").
std::string vendor_short_name(const std::string& vendor) {
  const std::string v = lower_arch_name(vendor);
  if (v.find("nvidia") != std::string::npos) return "nvidia";
  if (v.find("authenticamd") != std::string::npos || v.find("advanced micro") != std::string::npos ||
      v.find("amd") != std::string::npos)
    return "amd";
  if (v.find("intel") != std::string::npos) return "intel";
  if (v.find("arm") != std::string::npos) return "arm";
  if (v.find("apple") != std::string::npos) return "apple";
  return "";
}

// A CPU device (the host, or an OpenCL CPU device, which runs on the host in this process)
// answers to the host's instruction set and its widest SIMD extension.
void add_cpu_arch_names(std::vector<ArchName>& out) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const char* simd = __builtin_cpu_supports("avx512f") ? "avx512"
                     : __builtin_cpu_supports("avx2") ? "avx2"
                     : __builtin_cpu_supports("avx")  ? "avx"
                                                      : "sse";
  out.push_back({simd, 3, fmt::format("the host's widest SIMD extension is {}", simd)});
  out.push_back({"x86_64", 2, "the host's instruction set is x86_64"});
#elif defined(__aarch64__)
  out.push_back({"neon", 3, "the host's SIMD extension is NEON"});
  out.push_back({"aarch64", 2, "the host's instruction set is aarch64"});
#endif
}

}  // namespace

std::vector<ArchName> arch_names(const DeviceInfo& d) {
  std::vector<ArchName> out;
  const auto text = [&](const char* k) {
    return d.extra.contains(k) && d.extra[k].is_string() ? d.extra[k].get<std::string>() : std::string();
  };
  if (const auto cc = text("compute_capability"); !cc.empty()) {
    std::string digits = cc;
    std::erase(digits, '.');
    if (const auto arch = text("architecture"); !arch.empty())
      out.push_back({arch, 5, fmt::format("an NVIDIA {} GPU, compute capability {}", arch, cc)});
    out.push_back({"sm_" + digits, 5, fmt::format("compute capability {}", cc)});
  }
  if (d.type == "cpu") add_cpu_arch_names(out);
  if (const auto v = vendor_short_name(d.vendor); !v.empty())
    out.push_back({v, 2, fmt::format("its vendor is {} ('{}')", v, d.vendor)});
  // The API, above all but the architecture: the same CPU through OpenCL (PoCL vectorises
  // across work-items) may want another layout than hetbench's own host loops, which
  // share its SIMD level and vendor.
  const std::string api = to_string(d.backend);
  out.push_back({api, 4, fmt::format("it runs through {}", api)});
  if (!d.type.empty()) out.push_back({lower_arch_name(d.type), 1, fmt::format("its type is {}", d.type)});
  out.push_back({"any", 0, "'any' names every device"});
  std::stable_sort(out.begin(), out.end(), [](const ArchName& a, const ArchName& b) { return a.rank > b.rank; });
  return out;
}

ArchMatch match_arch(const LayoutFile& f, const DeviceInfo& d) {
  const auto names = arch_names(d);
  for (const auto& n : names)
    for (std::size_t a = 0; a < f.archs.size(); ++a)
      if (lower_arch_name(f.archs[a].arch) == n.name)
        return {a, true, fmt::format("Arch '{}' of {}: {} answers to '{}' ({})", f.archs[a].arch, f.path, d.id, n.name, n.why)};
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n.name;
  return {0, false,
          fmt::format("no Arch section of {} names {} (it answers to {}): its first section, '{}', is measured there",
                      f.path, d.id, known, f.archs.front().arch)};
}

std::optional<DeviceLayout> layout_for_device(const std::string& op, const Sizes& s, const DeviceInfo& d) {
  if (s.input.empty() || !split_layout_token(s.input).arch.empty()) return std::nullopt;  // none, or one pinned
  if (const Op* o = op_named(op); !o || !op_has_layouts(*o)) return std::nullopt;  // an input that is no layout
  const LayoutFile f = read_layout_file(layout_path(op, s.input));
  if (f.archs.size() < 2) return std::nullopt;
  DeviceLayout out;
  out.match = match_arch(f, d);
  out.token = s.input + "#" + f.archs[out.match.index].arch;
  return out;
}

std::string write_device_section(const std::string& path, ArchLayout section, const DeviceInfo& d) {
  LayoutFile f{path, {}};
  if (std::filesystem::exists(path)) f = read_layout_file(path);
  section.arch = arch_names(d).front().name;
  auto same = [&](const ArchLayout& a) { return lower_arch_name(a.arch) == section.arch; };
  if (auto it = std::find_if(f.archs.begin(), f.archs.end(), same); it != f.archs.end())
    *it = section;
  else
    f.archs.push_back(section);
  // Written beside and renamed over: an interrupted write never leaves half a file.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << layout_file_text(f, path);
    if (!out.flush()) throw Error(fmt::format("cannot write the layout file '{}'", tmp));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw Error(fmt::format("cannot write the layout file '{}': {}", path, ec.message()));
  return section.arch;
}

}  // namespace hetbench
