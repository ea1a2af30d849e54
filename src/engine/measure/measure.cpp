#include "engine/measure/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "engine/measure/interrupt.hpp"
#include "hetbench/error.hpp"
#include "hetbench/observer.hpp"
#include "ops/layout_problem.hpp"
#include "util/page_parts.hpp"
#include "util/stats.hpp"

namespace hetbench {

DeviceBuffers::DeviceBuffers(Device& dev, const Problem& prob) : DeviceBuffers(dev, prob, nullptr) {}

DeviceBuffers::DeviceBuffers(const Problem& prob, DeviceBuffers& like) : DeviceBuffers(like.dev_, prob, &like) {}

DeviceBuffers::DeviceBuffers(Device& dev, const Problem& prob, DeviceBuffers* like) : dev_(dev), prob_(prob) {
  auto fill = [&](Buffer& b, const ArrayOperand& a) {
    if (like)
      b.copy_from(*like->source_.at(a.name));
    else
      b.upload(a.host.data());
  };
  for (const auto& a : prob.arrays) {
    auto buf = dev.alloc(a.bytes());
    if (a.access != Access::Out) fill(*buf, a);
    source_[a.name] = buf.get();
    if (a.access == Access::InOut) {
      auto pristine = dev.alloc(a.bytes());
      fill(*pristine, a);
      restore_.emplace_back(buf.get(), pristine.get());
      source_[a.name] = pristine.get();
      owned_.push_back(std::move(pristine));
    }
    map_[a.name] = buf.get();
    owned_.push_back(std::move(buf));
  }
  dev.finish();
}

void DeviceBuffers::reset() {
  for (const auto& a : prob_.arrays)
    if (a.access == Access::Out) map_.at(a.name)->poison();
  restore();
}

void DeviceBuffers::restore() {
  for (auto& [work, pristine] : restore_) work->copy_from(*pristine);
  dev_.finish();
}

Outputs DeviceBuffers::download() {
  Outputs out;
  for (const auto& a : prob_.arrays)
    if (a.access != Access::In) {
      auto& v = out[a.name];
      v.resize(a.bytes());
      first_touch(v.data(), v.size());
      map_.at(a.name)->download(v.data());
    }
  dev_.finish();
  return out;
}

void DeviceBuffers::prepare_transfers() {
  for (const auto& a : prob_.arrays)
    if (a.access != Access::In) sinks_[a.name].assign(a.bytes(), 0);
}

void DeviceBuffers::upload_inputs() {
  for (const auto& a : prob_.arrays)
    if (a.access != Access::Out) map_.at(a.name)->upload(a.host.data());
}

void DeviceBuffers::download_outputs() {
  for (auto& [name, sink] : sinks_) map_.at(name)->download(sink.data());
}

StopReason StoppingRule::decide(const std::vector<double>& samples, double wall_s, bool interrupted) {
  if (interrupted) return StopReason::interrupted;
  const std::size_t n = samples.size();
  for (; summed_ < n; ++summed_) measured_ += samples[summed_];
  if (t_.reps) return n >= static_cast<std::size_t>(*t_.reps) ? StopReason::fixed_count : StopReason::none;
  // The interval costs O(n): computed when the other conditions hold, and then again
  // only after n has grown by 1/32, so that a long point stays O(n) overall.
  if (n >= static_cast<std::size_t>(t_.min_samples) && measured_ >= t_.min_time && n >= next_check_) {
    rel_ = median_interval(samples).rel_half_width();
    next_check_ = n + std::max<std::size_t>(1, n / 32);
    if (rel_ <= t_.max_noise) return StopReason::converged;
  }
  if (n >= static_cast<std::size_t>(t_.max_samples)) return StopReason::sample_cap;
  if (wall_s >= t_.timeout) return StopReason::time_cap;
  return StopReason::none;
}

MeasurePolicy measure_policy(const RunSpec& spec) {
  MeasurePolicy p;
  p.warmup = spec.warmup;
  p.stop.reps = spec.reps;
  p.stop.max_noise = spec.max_noise / 100;
  p.stop.min_samples = spec.min_samples;
  p.stop.min_time = spec.min_time;
  p.stop.timeout = spec.timeout;
  p.stop.max_samples = spec.max_samples;
  // Each round takes at least one sample.
  p.stop.rounds = std::max(1, std::min(spec.rounds, spec.reps ? *spec.reps : spec.min_samples));
  p.include_transfers = spec.include_transfers;
  p.cold_cache = spec.cache == "cold";
  p.energy = spec.energy;
  return p;
}

std::uint64_t flush_bytes(const DeviceInfo& info) {
  return info.llc_bytes ? 2 * info.llc_bytes : std::uint64_t{256} << 20;
}

namespace {

void merge(Validation& into, const Validation& v) {
  into.max_ratio = std::max(into.max_ratio, v.max_ratio);
  into.max_abs_err = std::max(into.max_abs_err, v.max_abs_err);
  into.max_rel_err = std::max(into.max_rel_err, v.max_rel_err);
  into.nan = std::max(into.nan, v.nan);
  into.unwritten = std::max(into.unwritten, v.unwritten);
  into.over_bound = std::max(into.over_bound, v.over_bound);
}

const char* timer_name(const Device& d) {
  switch (d.info().backend) {
    case BackendKind::OpenCL: return "opencl-profiling-events";
    case BackendKind::Cuda: return "cuda-events";
    case BackendKind::Host: break;
  }
  return "steady_clock";
}

// The scratch a cold-cache flush writes: `bytes` in pieces no larger than the device
// allows in one allocation.
std::vector<std::unique_ptr<Buffer>> flush_buffers(Device& dev, std::uint64_t& bytes) {
  const auto& i = dev.info();
  bytes = flush_bytes(i);
  const std::uint64_t piece = i.max_alloc ? std::min(bytes, i.max_alloc) : bytes;
  std::vector<std::unique_ptr<Buffer>> out;
  try {
    for (std::uint64_t done = 0; done < bytes; done += piece) out.push_back(dev.alloc(std::min(piece, bytes - done)));
  } catch (const PointError& e) {
    throw PointError(fmt::format("--cache cold: cannot allocate the {} MiB that flush the last-level cache: {}",
                                 bytes >> 20, e.what()));
  }
  return out;
}

}  // namespace

namespace {
std::function<void(PointPhase)>& phase_listener() {
  static std::function<void(PointPhase)> f;
  return f;
}
}  // namespace

void set_phase_listener(std::function<void(PointPhase)> listener) { phase_listener() = std::move(listener); }

void enter_phase(PointPhase phase) {
  if (phase_listener()) phase_listener()(phase);
}

namespace {
std::function<void(int, const BufferMap&)>& round_listener() {
  static std::function<void(int, const BufferMap&)> f;
  return f;
}
}  // namespace

void set_round_listener(std::function<void(int round, const BufferMap& buffers)> listener) {
  round_listener() = std::move(listener);
}

bool round_over(const StoppingTargets& t, int round, std::size_t n, double measured) {
  const auto r = static_cast<std::size_t>(std::max(1, t.rounds)), k = static_cast<std::size_t>(round) + 1;
  if (k >= r) return false;  // the last round goes on until the rule stops
  if (t.reps) return n * r >= k * static_cast<std::size_t>(*t.reps);
  return n * r >= k * static_cast<std::size_t>(t.min_samples) && measured * static_cast<double>(r) >= static_cast<double>(k) * t.min_time;
}

void measure_point(Device& dev, const Problem& prob, DeviceBuffers& point_bufs, const Variant& v,
                   const ParamValues& pv, const Op& op, const MeasurePolicy& policy, PointRecord& rec) {
  // Rounds after the first run on buffers of their own (`fresh`); `bufs` is the current.
  DeviceBuffers* bufs = &point_bufs;
  std::unique_ptr<DeviceBuffers> fresh;
  using clock = std::chrono::steady_clock;
  const auto since = [](clock::time_point a) { return std::chrono::duration<double>(clock::now() - a).count(); };
  const auto point_start = clock::now();
  enter_phase(PointPhase::building);
  auto inst = v.prepare(dev, prob, bufs->map(), pv);
  const double build_s = since(point_start);
  enter_phase(PointPhase::running);
  double validate_s = 0;
  if (policy.include_transfers) bufs->prepare_transfers();
  auto run_once = [&] {
    if (policy.include_transfers) bufs->upload_inputs();
    inst->run();
    if (policy.include_transfers) bufs->download_outputs();
  };
  // A validated run: outputs poisoned first, so that an element the kernel leaves
  // unwritten shows, then checked against the op's bound.
  auto validated_run = [&] {
    const auto start = clock::now();
    struct Add {  // the check's time, also when it throws
      double& to;
      clock::time_point from;
      ~Add() { to += std::chrono::duration<double>(clock::now() - from).count(); }
    } add{validate_s, start};
    bufs->reset();
    inst->reset();
    inst->run();
    dev.finish();
    Outputs out = bufs->download();
    inst->collect(out);
    return op.validate(prob, out);
  };
  // First run: validated on its own, so that a wrong kernel is caught before timing.
  Validation val = validated_run();
  for (int i = 0; i < policy.warmup; ++i) {
    bufs->restore();
    inst->reset();
    inst->run();
  }
  dev.finish();
  // Into the record once complete: a point that fails on the way has no timing.
  PointTiming t;
  t.include_transfers = policy.include_transfers;
  t.timer = timer_name(dev);
  t.warmup = policy.warmup;
  t.targets = policy.stop;
  t.cold_cache = policy.cold_cache;
  const auto scratch = policy.cold_cache ? flush_buffers(dev, t.flush_bytes) : std::vector<std::unique_ptr<Buffer>>{};
  // A new round: the operands on new buffers, allocated while the old ones are still
  // held so that they land elsewhere (Kalibera & Jones: the placement is a level of
  // variance a single allocation never samples), copied from the old ones on the device
  // (a 2 GiB operand crosses a GPU's host link in about 0.1 s, its memory in 1 ms), the
  // variant prepared on them, and one untimed run.
  auto next_round = [&] {
    try {
      auto next = std::make_unique<DeviceBuffers>(prob, *bufs);
      auto next_inst = v.prepare(dev, prob, next->map(), pv);
      inst = std::move(next_inst);  // before the buffers it was prepared on
      fresh = std::move(next);
      bufs = fresh.get();
      ++t.fresh_buffer_rounds;
      if (policy.include_transfers) bufs->prepare_transfers();
    } catch (const PointError&) {
      // No room for a second copy: the round stays on the current buffers (the record
      // says how many rounds had fresh ones).
    }
    bufs->restore();
    inst->reset();
    inst->run();
    dev.finish();
    if (round_listener()) round_listener()(static_cast<int>(t.round_samples.size()), bufs->map());
  };
  const ObserveOptions opts{policy.energy};
  for (const auto& o : observers()) o->begin(dev, prob, opts);
  StoppingRule rule(policy.stop);
  const auto t0 = std::chrono::steady_clock::now();
  auto wall = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::size_t round_start = 0;
  if (round_listener()) round_listener()(0, bufs->map());
  while ((t.stop = rule.decide(t.samples, wall(), interrupted())) == StopReason::none) {
    if (round_over(policy.stop, static_cast<int>(t.round_samples.size()), t.samples.size(), rule.measured())) {
      t.round_samples.push_back(t.samples.size() - round_start);
      round_start = t.samples.size();
      next_round();
    }
    // The in-out operands as they were, so that every repetition does the same work; the
    // outputs are poisoned only before the validated runs (a 2 GiB poison costs a GPU
    // 0.7 ms, more than half of a 2^28 D copy, and a host far more, on every repetition).
    bufs->restore();
    inst->reset();
    // After the restore, which itself brings the operands into the cache.
    for (const auto& b : scratch) b->poison();
    if (!scratch.empty()) dev.finish();
    // No timer here resolves below 1 ns: whole nanoseconds keep the record short.
    t.samples.push_back(std::round(dev.time(run_once) * 1e9) / 1e9);
    for (const auto& o : observers()) o->sample(dev, t);
  }
  t.wall_s = wall();
  t.measured_s = rule.measured();
  if (t.samples.size() > round_start) t.round_samples.push_back(t.samples.size() - round_start);
  for (const auto& o : observers()) o->timed_end(dev, t);
  // One more run, on the last round's buffers, is validated too: an element the timed
  // repetitions left unwritten shows as poison, and a race as a result that changed since
  // the first run.
  merge(val, validated_run());
  t.build_s = build_s;
  t.validate_s = validate_s;
  t.point_s = since(point_start);
  // Records of laid-out data (docs/layouts.md) split their time as Majeti et al. do: the
  // kernel (the timing) and the rest, one upload of the inputs and download of the
  // outputs plus the host's layout conversion measured when the problem was built.
  if (dynamic_cast<const LayoutProblem*>(&prob)) {
    bufs->prepare_transfers();
    const double tr = dev.time([&] {
      bufs->upload_inputs();
      bufs->download_outputs();
    });
    rec.features["transfer_s"] = tr;
    rec.features["rest_s"] = tr + prob.features.value("layout_convert_s", 0.0);
  }
  t.seconds = compute_stats(t.samples);
  const Stats& st = rec.timing.emplace(std::move(t)).seconds;
  if (st.median > 0) {
    rec.gflops = prob.flops / st.median * 1e-9;
    rec.gbs = prob.min_bytes / st.median * 1e-9;
    if (prob.raw_bytes) {
      // Sectors on a GPU (L1 asks L2 for 32-byte sectors), cache lines elsewhere.
      rec.raw_bytes = prob.raw_bytes(dev.info().type == "gpu" ? 32 : 64);
      rec.raw_gbs = *rec.raw_bytes / st.median * 1e-9;
    }
    if (prob.dependent_loads > 0) rec.ns_per_load = st.median / prob.dependent_loads * 1e9;
  }
  for (const auto& o : observers()) o->end(dev, prob, rec, run_once);
  rec.validation = val;
  rec.status = val.passed() ? PointStatus::ok : PointStatus::failed;
  // A signal before the first timed repetition leaves no time to report: the point is
  // interrupted (measured again by --resume), never "ok" at 0 s.
  if (rec.timing->samples.empty()) {
    rec.status = PointStatus::interrupted;
    rec.message = "interrupted before its first timed repetition";
    rec.gflops.reset();
    rec.gbs.reset();
  } else if (!val.passed())
    rec.message = fmt::format("validation failed: max error/bound {:.3g}, {} NaN, {} unwritten, {} over the bound",
                              val.max_ratio, val.nan, val.unwritten, val.over_bound);
}

const Problem& PointInputs::problem(const PlannedPoint& p) {
  const auto key = std::make_tuple(p.run, p.prec, p.size);
  if (!problem_ || key != problem_key_) {
    // The buffers hold the old problem's operands: they go first, and before the new
    // problem is built, so that two problems never share the memory.
    buffers_.reset();
    buffers_error_.clear();
    buffers_device_ = ~std::size_t{0};
    problem_.reset();
    const auto& run = plan_.runs[p.run];
    problem_ = run.op->make_problem(run.sizes[p.size], p.prec, seed_);
    problem_key_ = key;
  }
  return *problem_;
}

void PointInputs::release() {
  buffers_.reset();
  buffers_error_.clear();
  buffers_device_ = ~std::size_t{0};
  problem_.reset();
  problem_key_ = {~std::size_t{0}, Precision::S, 0};
}

DeviceBuffers& PointInputs::buffers(const PlannedPoint& p) {
  const Problem& prob = problem(p);
  if (p.device != buffers_device_) {
    buffers_.reset();
    buffers_error_.clear();
    buffers_device_ = p.device;
    try {
      buffers_ = std::make_unique<DeviceBuffers>(*plan_.runs[p.run].devices[p.device], prob);
    } catch (const PointError& e) {
      buffers_error_ = e.what();
    }
  }
  if (!buffers_error_.empty()) throw PointError(buffers_error_);
  return *buffers_;
}

}  // namespace hetbench
