// A device's report facts (`hetbench devices --report`, docs/memory-system.md): what
// deviceQuery and `nvidia-smi -q` print, as data so that text, JSON and HTML agree. Each
// backend registers how it reads them from its API (as backends register themselves);
// a backend without one gets DeviceInfo's fields.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "hetbench/device.hpp"

namespace hetbench {

struct DeviceFact {
  std::string section;   // "device", "compute", "clocks", "memory", "isa", "link", "power", "modes", "software", "peaks"
  std::string key;       // stable snake_case JSON key, unique within its section
  std::string label;     // what the text shows
  nlohmann::json value;  // number, string, bool or array; null when not available (note says why)
  std::string unit;      // "MHz", "bytes", "GB/s", "W", "bits", ... or ""
  std::string note;      // how it was derived, or why it is not available
};
using DeviceFacts = std::vector<DeviceFact>;

using FactsReader = std::function<DeviceFacts(const Device&)>;
void register_facts_reader(BackendKind kind, FactsReader read);
struct FactsRegistrar {
  FactsRegistrar(BackendKind kind, FactsReader read) { register_facts_reader(kind, std::move(read)); }
};
// The registered reader of d's backend, else generic_facts(d.info()).
DeviceFacts device_facts(const Device& d);
// DeviceInfo's fields as facts.
DeviceFacts generic_facts(const DeviceInfo& i);

class FactList {
 public:
  // Later add() calls go into `name`.
  FactList& section(std::string name) {
    section_ = std::move(name);
    return *this;
  }
  FactList& add(std::string key, std::string label, nlohmann::json value, std::string unit = "",
                std::string note = "") {
    facts_.push_back({section_, std::move(key), std::move(label), std::move(value), std::move(unit), std::move(note)});
    return *this;
  }
  // A fact the API did not give: value null, `why` in the note.
  FactList& absent(std::string key, std::string label, std::string unit, std::string why) {
    return add(std::move(key), std::move(label), nullptr, std::move(unit), std::move(why));
  }
  DeviceFacts take() { return std::move(facts_); }

 private:
  std::string section_ = "device";
  DeviceFacts facts_;
};

// id, backend, name, vendor, type, driver and version (section "device").
void add_identity_facts(FactList& f, const DeviceInfo& i);
// The theoretical peaks of DeviceInfo with their derivation (section "peaks").
void add_peak_facts(FactList& f, const DeviceInfo& i);

}  // namespace hetbench
