#include "backends/host/rapl.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>

#include <fmt/format.h>

namespace hetbench::rapl {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> read_line(const fs::path& p) {
  std::ifstream f(p);
  std::string s;
  if (!f || !std::getline(f, s)) return std::nullopt;
  return s;
}

std::optional<double> read_number(const fs::path& p) {
  const auto s = read_line(p);
  if (!s || s->empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(*s, &used);
    return used == s->size() && v >= 0 ? std::optional<double>(v) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

fs::path powercap_root() {
  const char* e = std::getenv("HETBENCH_POWERCAP_ROOT");
  return e && *e ? fs::path(e) : fs::path("/sys/class/powercap");
}

Domains open_domains(const fs::path& root) {
  Domains d;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    d.why = fmt::format("no RAPL energy counters: '{}' does not exist (no powercap driver, as in most virtual "
                        "machines)",
                        root.string());
    return d;
  }
  // /sys/class/powercap lists every zone (intel-rapl:0, intel-rapl:0:0, ...) as a link;
  // under a zone's own folder its subzones are folders. Two levels, no deeper: the
  // zones' folders also link back up (subsystem, device), which a recursion would follow.
  std::vector<fs::path> zones;
  std::set<fs::path> seen;
  auto consider = [&](const fs::path& p) {
    if (p.filename().string().rfind("intel-rapl:", 0) != 0 || !fs::is_directory(p, ec)) return false;
    if (seen.insert(fs::weakly_canonical(p, ec)).second) zones.push_back(p);
    return true;
  };
  for (const auto& e : fs::directory_iterator(root, ec))
    if (consider(e.path()))
      for (const auto& sub : fs::directory_iterator(e.path(), ec)) consider(sub.path());
  std::sort(zones.begin(), zones.end(), [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  std::string unreadable;
  for (const auto& z : zones) {
    const auto name = read_line(z / "name");
    if (!name || !(name->rfind("package", 0) == 0 || *name == "dram")) continue;
    Domain dom{*name, z / "energy_uj", read_number(z / "max_energy_range_uj").value_or(0), 0, 0};
    const auto v = read_number(dom.counter);
    if (!v) {
      if (unreadable.empty()) unreadable = dom.counter.string();
      continue;
    }
    dom.last_uj = *v;
    d.list.push_back(dom);
  }
  if (d.list.empty())
    d.why = !unreadable.empty()
                ? fmt::format("the RAPL counter '{}' cannot be read (Linux 5.10 and later let only root read it): run "
                              "as root, or make energy_uj readable",
                              unreadable)
                : fmt::format("no RAPL package domain under '{}'", root.string());
  return d;
}

bool advance(std::vector<Domain>& list) {
  for (auto& dom : list) {
    const auto v = read_number(dom.counter);
    if (!v) return false;
    double delta = *v - dom.last_uj;
    if (delta < 0) delta += dom.range_uj;
    if (delta > 0) dom.total_uj += delta;
    dom.last_uj = *v;
  }
  return true;
}

Joules totals(const std::vector<Domain>& list) {
  Joules j;
  for (const auto& dom : list) {
    if (dom.name == "dram") {
      j.dram += dom.total_uj * 1e-6;
      j.has_dram = true;
    } else {
      j.package += dom.total_uj * 1e-6;
    }
  }
  return j;
}

std::string domain_names(const std::vector<Domain>& list) {
  std::string s;
  for (const auto& dom : list) s += (s.empty() ? "" : " + ") + dom.name;
  return s;
}

}  // namespace hetbench::rapl
