#include "engine/measure.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/interrupt.hpp"
#include "hetbench/error.hpp"
#include "hetbench/observer.hpp"
#include "util/stats.hpp"

namespace hetbench {

DeviceBuffers::DeviceBuffers(Device& dev, const Problem& prob) : dev_(dev), prob_(prob) {
  for (const auto& a : prob.arrays) {
    auto buf = dev.alloc(a.bytes());
    if (a.access != Access::Out) buf->upload(a.host.data());
    if (a.access == Access::InOut) {
      auto pristine = dev.alloc(a.bytes());
      pristine->upload(a.host.data());
      restore_.emplace_back(buf.get(), pristine.get());
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
  for (auto& [work, pristine] : restore_) work->copy_from(*pristine);
  dev_.finish();
}

Outputs DeviceBuffers::download() {
  Outputs out;
  for (const auto& a : prob_.arrays)
    if (a.access != Access::In) {
      auto& v = out[a.name];
      v.resize(a.bytes());
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

bool StoppingRule::another(const std::vector<double>& samples) const {
  return static_cast<int>(samples.size()) < reps_ && !interrupted();
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

}  // namespace

void measure_point(Device& dev, const Problem& prob, DeviceBuffers& bufs, const Variant& v, const ParamValues& pv,
                   const Op& op, const MeasurePolicy& policy, PointRecord& rec) {
  auto inst = v.prepare(dev, prob, bufs.map(), pv);
  if (policy.include_transfers) bufs.prepare_transfers();
  auto run_once = [&] {
    if (policy.include_transfers) bufs.upload_inputs();
    inst->run();
    if (policy.include_transfers) bufs.download_outputs();
  };
  // First run: validated on its own, so that a wrong kernel is caught before timing.
  bufs.reset();
  inst->run();
  dev.finish();
  Validation val = op.validate(prob, bufs.download());
  for (int i = 0; i < policy.warmup; ++i) {
    bufs.reset();
    inst->run();
  }
  dev.finish();
  std::vector<double> samples;
  for (const auto& o : observers()) o->begin(dev, prob);
  for (const StoppingRule more(policy); more.another(samples);) {
    bufs.reset();
    samples.push_back(dev.time(run_once));
  }
  // The last timed run is validated too: a race shows up as a result that changes.
  merge(val, op.validate(prob, bufs.download()));
  const Stats st = compute_stats(samples);
  rec.timing = PointTiming{policy.include_transfers, timer_name(dev), policy.warmup, st};
  if (st.median > 0) {
    rec.gflops = prob.flops / st.median * 1e-9;
    rec.gbs = prob.min_bytes / st.median * 1e-9;
  }
  for (const auto& o : observers()) o->end(dev, prob, rec, run_once);
  rec.validation = val;
  rec.status = val.passed() ? PointStatus::ok : PointStatus::failed;
  if (!val.passed())
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
