#include "engine/measure/isolated_executor.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "engine/measure/executions.hpp"
#include "engine/measure/interrupt.hpp"
#include "engine/runner.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

namespace {

using Clock = std::chrono::steady_clock;

// Starting a worker plans the experiment and opens the devices; making a point's inputs
// builds its problem and reference on the host: both may take long on a big problem, and
// neither runs a kernel of the sweep.
constexpr double kStartLimit = 600, kInputsLimit = 600;
// A JIT build (PoCL, NVRTC) of one kernel; more when --point-timeout asks for more.
constexpr double kBuildFloor = 120;
// The device check: one small copy, its build included.
constexpr double kCheckLimit = 120;
// After Ctrl-C the point stops after its current repetition; a worker still busy then is killed.
// A worker still busy this long after the forwarded signal is killed: within the parent's
// own grace period (kInterruptGraceS), so that the parent records the point itself.
constexpr double kWorkerGrace = kInterruptGraceS - 2;

PointStatus status_of(const std::string& s) {
  for (auto st : {PointStatus::ok, PointStatus::failed, PointStatus::error, PointStatus::skipped, PointStatus::crashed,
                  PointStatus::timeout, PointStatus::interrupted})
    if (to_string(st) == s) return st;
  return PointStatus::error;
}

PointRecord record_from_json(int index, nlohmann::json j) {
  PointRecord rec;
  rec.measured_json = std::move(j);
  rec.point = index;
  rec.status = status_of(rec.measured_json.value("status", ""));
  rec.message = rec.measured_json.value("message", "");
  const std::string stage = rec.measured_json.value("error_stage", "");
  rec.error_stage = stage == "build" ? ErrorStage::build
                   : stage == "run"  ? ErrorStage::run
                   : stage == "input" ? ErrorStage::input
                                      : ErrorStage::none;
  return rec;
}

}  // namespace

IsolatedExecutor::IsolatedExecutor(const Plan& plan, std::uint64_t seed, nlohmann::json setup,
                                   std::optional<double> point_timeout)
    : plan_(plan), seed_(seed), setup_(std::move(setup)), point_timeout_(point_timeout), no_inputs_(plan, seed) {}

IsolatedExecutor::~IsolatedExecutor() {
  // Closing the link ends a waiting worker; one that does not end soon is killed.
  for (auto& [dev, s] : slots_)
    if (s.worker) s.worker->end(2000);
}

IsolatedExecutor::Reply IsolatedExecutor::await(Slot& s, double limit_s, const std::string& doing) {
  Reply r;
  std::string phase = doing;
  auto deadline = Clock::now() + std::chrono::duration<double>(limit_s);
  double limit = limit_s;
  bool forwarded = false;
  for (;;) {
    switch (s.worker->receive(r.msg, 100)) {
      case WorkerProcess::Got::message:
        if (r.msg.value("type", "") != "phase") return r;
        phase = r.msg.value("phase", "");
        if (phase == "running") limit = point_timeout_ ? *point_timeout_ : r.msg.value("limit_s", kBuildFloor);
        else limit = phase == "building" ? std::max(kBuildFloor, point_timeout_.value_or(0)) : kInputsLimit;
        if (!forwarded) deadline = Clock::now() + std::chrono::duration<double>(limit);
        continue;
      case WorkerProcess::Got::closed:
        r.fault = PointStatus::crashed;
        r.why = fmt::format("its worker process was {} while {}", s.worker->end(2000), phase);
        break;
      case WorkerProcess::Got::nothing_yet:
        if (interrupted() && !forwarded) {
          forwarded = true;
          s.worker->signal(SIGINT);
          deadline = std::min(deadline, Clock::now() + std::chrono::duration<double>(kWorkerGrace));
        }
        if (Clock::now() < deadline) continue;
        s.worker->end(0);
        r.fault = forwarded ? PointStatus::interrupted : PointStatus::timeout;
        r.why = forwarded ? fmt::format("interrupted: its worker process was still {} {:.0f} s after the signal and was "
                                        "killed", phase, kWorkerGrace)
                          : fmt::format("ran past the {:.3g} s limit while {} and its worker process was killed", limit,
                                        phase);
        break;
    }
    s.worker.reset();
    s.after_fault = true;
    return r;
  }
}

std::string IsolatedExecutor::start(Slot& s, const std::string& device) {
  try {
    s.worker = std::make_unique<WorkerProcess>();
  } catch (const std::exception& e) {
    return e.what();
  }
  s.worker->send(setup_);
  Reply r = await(s, kStartLimit, "starting");
  if (r.fault != PointStatus::ok) return "starting the device's worker failed: " + r.why;
  if (r.msg.value("type", "") != "ready") return "a worker for the device failed: " + r.msg.value("message", r.msg.dump());
  if (!s.after_fault) return "";
  // After a fault: the device must still run a known-good kernel before it takes work.
  s.worker->send({{"type", "check"}, {"device", device}});
  r = await(s, kCheckLimit, "checking the device");
  if (r.fault != PointStatus::ok) return "the device failed its check after a fault: " + r.why;
  if (const std::string why = r.msg.value("message", ""); !why.empty())
    return "the device failed its check after a fault: " + why;
  s.after_fault = false;
  return "";
}

PointRecord IsolatedExecutor::planned_record(int index, const PlannedPoint& p, PointStatus status,
                                             const std::string& message) const {
  PointRecord rec = start_record(index, plan_.runs[p.run], p, seed_);
  rec.status = status;
  rec.message = message;
  if (status == PointStatus::error) rec.error_stage = ErrorStage::run;
  return rec;
}

PointRecord IsolatedExecutor::measure_once(int index, const PlannedPoint& p) {
  // Nothing to run (a constraint, an unreadable input): recorded here, as in process.
  if (!p.skip.empty() || !p.input_error.empty()) return measure_planned_point(index, plan_, p, no_inputs_, seed_);
  const std::string device = plan_.runs[p.run].devices[p.device]->id();
  Slot& s = slots_[device];
  if (!s.worker && s.broken.empty()) s.broken = start(s, device);
  if (!s.broken.empty()) return planned_record(index, p, PointStatus::error, s.broken);
  s.worker->send({{"type", "point"},
                  {"index", &p - plan_.points.data()},
                  {"number", index},
                  {"variant_id", p.variant->id()},
                  {"params", p.params}});
  const Reply r = await(s, kInputsLimit, "inputs");
  if (r.fault != PointStatus::ok) return planned_record(index, p, r.fault, "the point: " + r.why);
  const std::string type = r.msg.value("type", "");
  if (type == "fatal") {  // the worker threw and ends: the next point takes a new one
    s.worker->end(2000);
    s.worker.reset();
    s.after_fault = true;
  }
  if (type != "record") return planned_record(index, p, PointStatus::error, r.msg.value("message", r.msg.dump()));
  PointRecord rec = record_from_json(index, r.msg["record"]);
  if (r.msg.value("exit", false)) {  // the device's context is gone with this worker
    s.worker->end(2000);
    s.worker.reset();
    s.after_fault = true;
  }
  return rec;
}

PointRecord IsolatedExecutor::measure(int index, const PlannedPoint& p) {
  const RunSpec* spec = plan_.runs[p.run].spec;
  const int executions = spec ? spec->executions : 1;
  if (executions <= 1 || !p.skip.empty() || !p.input_error.empty()) return measure_once(index, p);
  const std::string device = plan_.runs[p.run].devices[p.device]->id();
  std::vector<nlohmann::json> done;
  for (int e = 0; e < executions; ++e) {
    // After Ctrl-C no further process is started: the executions done are the point.
    if (e > 0 && interrupted()) break;
    PointRecord rec = measure_once(index, p);
    // The worker ends with its execution: the next one starts a process of its own.
    if (auto& s = slots_[device]; s.worker) {
      s.worker->end(2000);
      s.worker.reset();
    }
    if (rec.status != PointStatus::ok) return rec;  // a failure or fault stands for the point
    done.push_back(to_json(rec));
  }
  try {
    return record_from_json(index, merge_executions(done));
  } catch (const Error& ex) {  // an execution without samples (interrupted before its first)
    return planned_record(index, p, PointStatus::error, ex.what());
  }
}

}  // namespace hetbench
