// The measurement policy: operands on the device, a validated first run, warm-up, timed
// repetitions until the stopping rule says enough, and one more run validated too.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "engine/plan/plan.hpp"
#include "engine/plan/spec.hpp"
#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "hetbench/record.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

// A problem's operands on one device. Before a run, untimed: reset() poisons the Out
// arrays and restores the InOut arrays from a pristine device copy; restore() does only the
// latter (between timed repetitions, whose outputs are not validated).
class DeviceBuffers {
 public:
  // Uploads every operand; throws PointError when the device cannot hold them.
  DeviceBuffers(Device& dev, const Problem& prob);
  // New buffers holding `like`'s operands (its inputs and pristine InOut copies), copied
  // on the device: a round's new placement without another trip through the host link.
  DeviceBuffers(const Problem& prob, DeviceBuffers& like);
  const BufferMap& map() const { return map_; }
  void reset();
  void restore();
  Outputs download();
  // Timed transfers: host memory for the downloads is allocated (and touched) by
  // prepare_transfers, before any timing.
  void prepare_transfers();
  void upload_inputs();
  void download_outputs();

 private:
  DeviceBuffers(Device& dev, const Problem& prob, DeviceBuffers* like);

  Device& dev_;
  const Problem& prob_;
  BufferMap map_;
  std::vector<std::unique_ptr<Buffer>> owned_;
  std::vector<std::pair<Buffer*, Buffer*>> restore_;  // InOut: (working, pristine)
  std::map<std::string, Buffer*> source_;  // In and InOut arrays: the untouched copy
  std::map<std::string, std::vector<unsigned char>> sinks_;  // Out and InOut arrays
};

struct MeasurePolicy {
  int warmup = 3;
  StoppingTargets stop;
  bool include_transfers = false;
  bool cold_cache = false;  // flush the last-level cache before each timed repetition
  bool energy = false;      // --energy: observers may take an extra window (NVML energy)
};
// The policy a run asks for (its values were checked when the spec was read).
MeasurePolicy measure_policy(const RunSpec& spec);

// Whether to take another timed repetition: the one place that decides how many
// repetitions a point gets. A fixed count when targets.reps is set; otherwise adaptive,
// as nvbench's cold measurement (NVIDIA/nvbench, nvbench/detail/measure_cold.cu and
// stdrel_criterion.cxx: at least min-samples samples and min-time of accumulated
// measured time, then stop once the noise is under max-noise, or at the wall-time
// timeout), except that the noise is the relative half-width of the median's
// distribution-free 95 % interval (util/stats.hpp) rather than the relative standard
// deviation of the mean, and that max_samples bounds the record. Reads no clock: the
// caller passes the wall time, so the rule is tested on synthetic sample streams.
class StoppingRule {
 public:
  explicit StoppingRule(const StoppingTargets& t) : t_(t) {}
  // `samples` only grows between calls (the sum and the checks are incremental);
  // StopReason::none means take another.
  StopReason decide(const std::vector<double>& samples, double wall_s, bool interrupted);
  double measured() const { return measured_; }
  // Of the last interval computed; infinity before the first.
  double rel_half_width() const { return rel_; }

 private:
  StoppingTargets t_;
  std::size_t summed_ = 0, next_check_ = 0;
  double measured_ = 0, rel_ = std::numeric_limits<double>::infinity();
};

// Rounds (StoppingTargets::rounds, docs/measurement.md): whether round `round` (0-based)
// is over after n samples and `measured` seconds of them. Round k < R-1 ends at k+1 R-ths
// of the minimum (reps when fixed; min_samples and min_time when adaptive); the last
// goes on until the stopping rule ends the point, so rounds cost no extra samples.
bool round_over(const StoppingTargets& t, int round, std::size_t n, double measured);
// A test hook: called as each round of a point starts, with the buffers it runs on.
void set_round_listener(std::function<void(int round, const BufferMap& buffers)> listener);

// Bytes a cold-cache flush writes on a device: twice its last-level cache, or 256 MiB
// where the device does not say.
std::uint64_t flush_bytes(const DeviceInfo& info);

// Where a point is: a worker process reports each phase to its parent, which gives the
// build and the kernel runs limits of their own (docs/isolation.md). The listener is
// the process's one; none by default.
enum class PointPhase { inputs, building, running };
void set_phase_listener(std::function<void(PointPhase)> listener);
void enter_phase(PointPhase phase);

// Measures one point: fills rec's timing, gflops, gbs, what the observers add, the
// validation, status and message. Throws PointError for build, launch or memory failures.
void measure_point(Device& dev, const Problem& prob, DeviceBuffers& bufs, const Variant& v, const ParamValues& pv,
                   const Op& op, const MeasurePolicy& policy, PointRecord& rec);

// The problem and device buffers that consecutive points share: built when a point
// first needs them, dropped when a point needs another (the plan orders points so that
// each is built once).
class PointInputs {
 public:
  PointInputs(const Plan& plan, std::uint64_t seed) : plan_(plan), seed_(seed) {}
  const Problem& problem(const PlannedPoint& p);
  // Throws PointError when the operands do not fit; later points on the same device
  // and problem get the same error without another try.
  DeviceBuffers& buffers(const PlannedPoint& p);
  // Drops the problem and its buffers (after the host ran out of memory building them):
  // the next point builds its own from nothing.
  void release();

 private:
  const Plan& plan_;
  std::uint64_t seed_;
  std::unique_ptr<Problem> problem_;
  std::tuple<std::size_t, Precision, std::size_t> problem_key_{~std::size_t{0}, Precision::S, 0};
  std::unique_ptr<DeviceBuffers> buffers_;
  std::string buffers_error_;
  std::size_t buffers_device_ = ~std::size_t{0};
};

}  // namespace hetbench
