// Measured ceilings of a device: COPY bandwidth and FMA throughput (op `peak`), written
// by `hetbench ceilings` and read back to judge every later point against them
// (pct_ceiling, pct_bw). Format and method: docs/ceilings.md.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "hetbench/device.hpp"
#include "hetbench/precision.hpp"

namespace hetbench {

// One measured ceiling and what achieved it.
struct CeilingValue {
  double value = 0;        // GB/s or GFLOP/s
  std::string variant_id;  // backend/op/name
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json sizes = nlohmann::json::object();
  std::string precision;
};

struct Ceilings {
  std::string device_id, device_name, driver;
  std::optional<CeilingValue> copy;              // best over S and D; bytes read + written
  std::optional<CeilingValue> copy_s, copy_d;    // per precision, for information
  std::optional<CeilingValue> peak_s, peak_d;    // GFLOP/s
  std::string date, experiment;
  std::filesystem::path file;  // where it was loaded from or saved to

  // The FMA ceiling an op in precision p is judged against: S for S and DF (float
  // words), D for D and DD (double words); empty when it was not measured.
  std::optional<double> peak_gflops(Precision p) const;
  std::optional<double> copy_gbs() const { return copy ? std::optional<double>(copy->value) : std::nullopt; }
};

nlohmann::json to_json(const Ceilings& c);
// cache_root()/ceilings/<sanitised id>-<hash of name, vendor, driver, version>.json
std::filesystem::path ceilings_path(const DeviceInfo& d);
// Empty when the device has no stored ceilings or the file does not belong to this
// device (name or driver changed); a malformed file is reported on stderr once.
std::optional<Ceilings> load_ceilings(const DeviceInfo& d);
// Writes atomically; returns the path. Throws Error when it cannot be written.
std::filesystem::path save_ceilings(const DeviceInfo& d, Ceilings c);

// The roofline percentage: 100 × t_floor / t, t_floor = max(flops / peak_flops(p),
// min_bytes / copy_gbs). Empty when the ceilings cannot judge the point.
std::optional<double> roofline_pct(const Ceilings& c, Precision p, double flops, double min_bytes, double seconds);

}  // namespace hetbench
