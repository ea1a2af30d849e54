// The record of one point, as written to results.jsonl (docs/results-format.md). Typed so
// that the runner and the observers fill fields, and one to_json decides the keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hetbench/op.hpp"
#include "hetbench/precision.hpp"
#include "hetbench/variant.hpp"
#include "util/stats.hpp"

namespace hetbench {

enum class PointStatus { ok, failed, error, skipped };
std::string_view to_string(PointStatus s);
// For an error point: whether it happened building the kernel or running the point.
enum class ErrorStage { none, build, run };
std::string_view to_string(ErrorStage s);

// How the timed repetitions were taken.
struct PointTiming {
  bool include_transfers = false;  // "kernel+transfers" instead of "kernel"
  std::string timer;               // opencl-profiling-events, cuda-events, steady_clock
  int warmup = 0;
  Stats seconds;  // of one repetition; its n is the number of timed repetitions
};

// The device's measured ceilings a point is judged against (docs/ceilings.md).
struct PointCeiling {
  double gbs = 0;
  std::optional<double> gflops;  // null when the precision's FMA ceiling was not measured
  std::string source;            // the ceilings file
};

// What observers add to a point; each stays out of the JSON until set.
struct ObservedFields {
  std::optional<PointCeiling> ceiling;
  std::optional<double> pct_ceiling, pct_bw;
  nlohmann::json energy;  // the NVML observer's object (docs/cuda.md); null when not observed
};

struct PointRecord {
  int point = 0;
  std::string op, variant, variant_id;
  VariantKind kind = VariantKind::Kernel;
  BackendKind backend = BackendKind::Host;
  std::string device, device_name;
  Precision precision = Precision::S;
  Sizes sizes;
  ParamValues params;
  std::uint64_t seed = 0;
  std::string time;  // ISO 8601, when the point started
  // Set once the problem is built (measured points only).
  std::optional<double> flops, min_bytes;
  nlohmann::json features = nlohmann::json::object();
  std::optional<PointTiming> timing;
  std::optional<double> gflops, gbs;
  std::optional<Validation> validation;
  ObservedFields observed;
  PointStatus status = PointStatus::ok;
  ErrorStage error_stage = ErrorStage::none;  // set with status error
  std::string message;  // why, for anything but ok
};

// The results.jsonl object: absent optionals leave their keys out; "message" only when
// the status is not ok.
nlohmann::json to_json(const PointRecord& r);

}  // namespace hetbench
