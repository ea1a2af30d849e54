// The record of one point, as written to results.jsonl (docs/results-format.md). Typed so
// that the runner and the observers fill fields, and one to_json decides the keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/op.hpp"
#include "hetbench/precision.hpp"
#include "hetbench/variant.hpp"
#include "util/stats.hpp"

namespace hetbench {

// crashed: the worker process measuring the point died (a signal, an exit) or hit an
// error that leaves the device unusable (a CUDA sticky error, OpenCL CL_OUT_OF_RESOURCES);
// timeout: it ran past --point-timeout and was killed (docs/isolation.md).
enum class PointStatus { ok, failed, error, skipped, crashed, timeout, interrupted };
std::string_view to_string(PointStatus s);
// The status a record's "status" names; nullopt for a word that is none (a hand edit).
std::optional<PointStatus> point_status_from(std::string_view s);
// For an error point: whether its input could not be read (nothing ran), or it happened
// building the kernel or running the point.
enum class ErrorStage { none, build, run, input };
std::string_view to_string(ErrorStage s);

// When the timed repetitions of a point stop (docs/measurement.md): a fixed count, or
// adaptively once the median's 95 % interval is narrow enough, after enough samples and
// measured time, within a wall-time cap. The defaults are nvbench's (min-samples 10,
// min-time 0.5 s, max-noise 0.5 %, timeout 15 s); max_samples bounds the record.
struct StoppingTargets {
  std::optional<int> reps;   // a fixed count; empty: adaptive
  double max_noise = 0.005;  // relative half-width of the median's interval (a fraction)
  int min_samples = 10;
  double min_time = 0.5;     // seconds of measured (timed) work
  double timeout = 15;       // seconds of wall time for the timed repetitions
  int max_samples = 10000;
  // The repetitions are taken in this many rounds, each on buffers allocated for it
  // (docs/measurement.md, "Rounds"): at most reps, or min_samples when adaptive.
  int rounds = 1;
};

enum class StopReason { none, converged, time_cap, sample_cap, fixed_count, interrupted };
std::string_view to_string(StopReason r);

// How the timed repetitions were taken.
struct PointTiming {
  bool include_transfers = false;  // "kernel+transfers" instead of "kernel"
  std::string timer;               // opencl-profiling-events, cuda-events, steady_clock
  int warmup = 0;
  Stats seconds;  // of one repetition; its n is the number of timed repetitions
  std::vector<double> samples;  // every timed repetition, seconds, in order
  StoppingTargets targets;
  StopReason stop = StopReason::none;  // none: not recorded (the key stays out)
  double measured_s = 0, wall_s = 0;  // sum of the samples; wall time of the timed loop
  // Where the point's wall time went besides the timed loop (seconds, 0: not measured):
  // preparing the variant (compiling, or taking the kernel cache), the validated runs
  // (the first and the last, each a run, a download and the check), and the whole point
  // from preparing to the last check (the rest is warm-up, rounds and observers).
  double build_s = 0, validate_s = 0, point_s = 0;
  bool cold_cache = false;            // the last-level cache flushed before each repetition
  std::uint64_t flush_bytes = 0;      // bytes written to flush it
  // Per-sample marks from observers, parallel to samples or empty: the SM clock after
  // the repetition (MHz, 0 where unread), the board's power draw (W, 0 where unread) and
  // GPU temperature (C) then, and whether the GPU was throttled then, with the reasons
  // seen over the point. On CPUs: the mean frequency of the CPUs then (MHz, from cpufreq)
  // and the frequency governors seen over the point.
  std::vector<unsigned> sm_clock_mhz;
  std::vector<double> power_w;
  std::vector<unsigned> temperature_c;
  std::vector<std::uint8_t> throttled;
  std::vector<std::string> throttle_reasons;
  std::vector<unsigned> cpu_clock_mhz;
  std::vector<std::string> cpu_governors;
  std::string cpu_clock_why;  // why cpu_clock_mhz is empty on a CPU device (one line)
  // Rounds (StoppingTargets::rounds): how many samples each took (consecutive slices of
  // samples) and how many ran on buffers allocated for them (the first round uses the
  // point's own; a round whose allocation failed stays on the previous ones).
  std::vector<std::size_t> round_samples;
  int fresh_buffer_rounds = 0;
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
  // Where each parameter value came from ("command line", "db:<id> same device, ...",
  // "metadata D"), and with --variant auto why the variant was chosen; null when unset.
  nlohmann::json param_source, auto_choice;
  std::uint64_t seed = 0;
  std::string time;  // ISO 8601, when the point started
  // Set once the problem is built (measured points only).
  std::optional<double> flops, min_bytes;
  nlohmann::json features = nlohmann::json::object();
  std::optional<PointTiming> timing;
  std::optional<double> gflops, gbs;
  // Set where the problem gives them (Problem::raw_bytes, dependent_loads).
  std::optional<double> raw_bytes, raw_gbs, ns_per_load;
  std::optional<Validation> validation;
  ObservedFields observed;
  PointStatus status = PointStatus::ok;
  ErrorStage error_stage = ErrorStage::none;  // set with status error
  std::string message;  // why, for anything but ok
  // A point measured in a worker process (engine/measure/isolated_executor) arrives as its
  // results.jsonl object: to_json returns it as it is, with `point` renumbered. The typed
  // fields above that callers read (point, status, error_stage, message) are set from it.
  nlohmann::json measured_json;
};

// The results.jsonl object: absent optionals leave their keys out; "message" only when
// the status is not ok.
nlohmann::json to_json(const PointRecord& r);

}  // namespace hetbench
