// The measurement policy: operands on the device, a validated first run, warm-up, timed
// repetitions until the stopping rule says enough, and the last timed run validated too.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "engine/plan.hpp"
#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "hetbench/record.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

// A problem's operands on one device. Out arrays are poisoned and InOut arrays restored
// from a pristine device copy before every run, untimed.
class DeviceBuffers {
 public:
  // Uploads every operand; throws PointError when the device cannot hold them.
  DeviceBuffers(Device& dev, const Problem& prob);
  const BufferMap& map() const { return map_; }
  void reset();
  Outputs download();
  // Timed transfers: host memory for the downloads is allocated (and touched) by
  // prepare_transfers, before any timing.
  void prepare_transfers();
  void upload_inputs();
  void download_outputs();

 private:
  Device& dev_;
  const Problem& prob_;
  BufferMap map_;
  std::vector<std::unique_ptr<Buffer>> owned_;
  std::vector<std::pair<Buffer*, Buffer*>> restore_;  // InOut: (working, pristine)
  std::map<std::string, std::vector<unsigned char>> sinks_;  // Out and InOut arrays
};

struct MeasurePolicy {
  int warmup = 3;
  int reps = 20;
  bool include_transfers = false;
};

// Whether to take another timed repetition. The one place that decides how many
// repetitions a point gets: today a fixed count (cut short by an interrupt); an adaptive
// rule (until the confidence interval is narrow enough) belongs here.
class StoppingRule {
 public:
  explicit StoppingRule(const MeasurePolicy& p) : reps_(p.reps) {}
  bool another(const std::vector<double>& samples) const;

 private:
  int reps_;
};

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
