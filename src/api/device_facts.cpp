// The facts every device has (from DeviceInfo), and the registry of the backends' readers.
#include "api/device_facts.hpp"

#include <map>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench {

namespace {

std::map<BackendKind, FactsReader>& readers() {
  static std::map<BackendKind, FactsReader> r;
  return r;
}

}  // namespace

void register_facts_reader(BackendKind kind, FactsReader read) {
  if (!readers().emplace(kind, std::move(read)).second)
    throw Error(fmt::format("a facts reader for backend {} is registered twice", to_string(kind)));
}

DeviceFacts device_facts(const Device& d) {
  auto it = readers().find(d.info().backend);
  return it != readers().end() ? it->second(d) : generic_facts(d.info());
}

void add_identity_facts(FactList& f, const DeviceInfo& i) {
  f.section("device")
      .add("id", "id", i.id)
      .add("backend", "backend", to_string(i.backend))
      .add("name", "name", i.name)
      .add("vendor", "vendor", i.vendor)
      .add("type", "type", i.type)
      .add("driver", "driver", i.driver)
      .add("version", "version", i.version);
}

void add_peak_facts(FactList& f, const DeviceInfo& i) {
  auto peak = [&](const char* key, const char* label, const std::optional<double>& v, const char* unit) {
    if (v)
      f.add(key, label, *v, unit, i.peak_note);
    else
      f.absent(key, label, unit, "cannot be derived from what the API reports");
  };
  f.section("peaks");
  peak("fp32_gflops", "FP32 peak (theoretical)", i.peak_gflops_s, "GFLOP/s");
  peak("fp64_gflops", "FP64 peak (theoretical)", i.peak_gflops_d, "GFLOP/s");
  peak("memory_gbs", "memory bandwidth (theoretical)", i.peak_gbs, "GB/s");
}

DeviceFacts generic_facts(const DeviceInfo& i) {
  FactList f;
  add_identity_facts(f, i);
  f.section("compute")
      .add("compute_units", "compute units", i.compute_units)
      .add("max_clock_mhz", "max clock", i.max_clock_mhz, "MHz")
      .add("max_work_group_size", "max work-group size", i.max_wg)
      .add("preferred_work_group_multiple", "preferred work-group multiple", i.pref_wg_multiple)
      .add("fp64", "FP64", i.fp64);
  f.section("memory")
      .add("global_bytes", "global memory", i.global_mem, "bytes")
      .add("max_alloc_bytes", "largest allocation", i.max_alloc, "bytes")
      .add("local_bytes", "local memory", i.local_mem, "bytes")
      .add("llc_bytes", "last-level cache", i.llc_bytes, "bytes");
  add_peak_facts(f, i);
  return f.take();
}

}  // namespace hetbench
