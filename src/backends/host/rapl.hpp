// RAPL energy counters through Linux's powercap interface: the package domains and
// their DRAM subzones, read as totals that undo a counter's wrap (energy_rapl.cpp uses
// them around each point; docs/measurement.md, "Energy").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hetbench::rapl {

struct Domain {
  std::string name;               // package-0, dram, ...
  std::filesystem::path counter;  // .../energy_uj
  double range_uj = 0;            // max_energy_range_uj: where the counter wraps to 0
  double last_uj = 0, total_uj = 0;  // total: since the domain was opened, wraps undone
};

// The package domains (and their DRAM subzones) under the powercap tree, or why none can
// be read. Core and uncore subzones are inside their package and are left out.
struct Domains {
  std::vector<Domain> list;
  std::string why;
};

// $HETBENCH_POWERCAP_ROOT (a tree of the same layout), else /sys/class/powercap.
std::filesystem::path powercap_root();
Domains open_domains(const std::filesystem::path& root = powercap_root());
// Reads every counter once more, adding each advance (a counter below its last value has
// wrapped: its range is added). False when a counter can no longer be read.
bool advance(std::vector<Domain>& list);

struct Joules {
  double package = 0, dram = 0;
  bool has_dram = false;
};
Joules totals(const std::vector<Domain>& list);
// "package-0 + dram"
std::string domain_names(const std::vector<Domain>& list);

}  // namespace hetbench::rapl
