// The worker process: plans the experiment as its parent did, then measures the points
// it is handed on its device, keeping problems and buffers between them as a run in one
// process does, and reports each phase so that its parent can time it.
#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "engine/measure/interrupt.hpp"
#include "engine/measure/point_executor.hpp"
#include "engine/runner.hpp"
#include "engine/plan/worker_planner.hpp"
#include "engine/measure/worker_process.hpp"
#include "hetbench/error.hpp"
#include "kernel/foreign/foreign.hpp"
#include "tuning/db.hpp"
#include "tuning/shipped.hpp"

namespace hetbench {

namespace {

// A kernel run may be far off the device's peaks: each is allowed this many times the
// time the peaks give it, and the point three times what that adds up to.
constexpr double kOffPeak = 100, kSlack = 3, kRunningFloor = 30;

// The seconds a point's kernel runs (validation runs, warm-up, timed repetitions)
// should take at most: the stopping rule's time limit plus the runs the peaks price.
double running_limit(const RunSpec& s, const DeviceInfo& d, const Problem& prob, Precision prec) {
  const double gbs = d.peak_gbs.value_or(10);
  const auto gflops = prec == Precision::D || prec == Precision::DD ? d.peak_gflops_d : d.peak_gflops_s;
  const double per_run = 1e-3 + kOffPeak * (prob.min_bytes / (gbs * 1e9) + prob.flops / (gflops.value_or(10) * 1e9));
  double timed = s.reps ? *s.reps * per_run : s.timeout + per_run;
  if (s.reps && s.cache == "cold") timed += *s.reps * kOffPeak * static_cast<double>(flush_bytes(d)) / (gbs * 1e9);
  const double expected = timed + (s.warmup + 3) * per_run + (s.energy ? 2 : 0);
  return std::max(kRunningFloor, kSlack * expected);
}

// The check after a fault: the copy op's simplest variant for the device's API, validated.
std::string check_device(const std::string& device, std::uint64_t seed) {
  Experiment e;
  RunSpec r;
  r.op = "copy";
  const std::string api = device.substr(0, device.find(':'));
  r.variants = {api == "host" ? "host/copy/loop" : api + "/copy/simple"};
  r.devices = device;
  r.precisions = {Precision::S};
  r.sizes = {"65536"};
  r.reps = 3;
  r.warmup = 1;
  e.runs = {r};
  e.seed = seed;
  try {
    const Plan plan = plan_experiment(e);
    if (plan.points.empty()) return fmt::format("{} has no point on {}", r.variants[0], device);
    PointInputs inputs(plan, seed);
    const PointRecord rec = measure_planned_point(0, plan, plan.points[0], inputs, seed);
    if (rec.status != PointStatus::ok)
      return fmt::format("{} on {}: {}: {}", r.variants[0], device, to_string(rec.status), rec.message);
  } catch (const std::exception& ex) {
    return fmt::format("{} on {}: {}", r.variants[0], device, ex.what());
  }
  return "";
}

// Errors after which the device's context is unusable in this process: CUDA's sticky
// errors, and OpenCL's CL_OUT_OF_RESOURCES from a kernel (not from an allocation).
bool context_lost(const std::string& message) {
  static const char* const sticky[] = {"cudaErrorIllegalAddress",      "cudaErrorLaunchFailure",
                                       "cudaErrorAssert",              "cudaErrorIllegalInstruction",
                                       "cudaErrorMisalignedAddress",   "cudaErrorInvalidAddressSpace",
                                       "cudaErrorInvalidPc",           "cudaErrorHardwareStackError",
                                       "cudaErrorLaunchTimeout",       "cudaErrorECCUncorrectable"};
  for (const char* s : sticky)
    if (message.find(s) != std::string::npos) return true;
  return message.find("CL_OUT_OF_RESOURCES") != std::string::npos && message.find("clCreateBuffer") == std::string::npos;
}

struct WorkerState {
  Experiment e;
  std::unique_ptr<tuning::LayeredLookup> db;
  std::unique_ptr<Plan> own_plan;
  const Plan* plan = nullptr;        // own_plan, or one a planner owns (`owner`)
  std::shared_ptr<void> owner;
  std::unique_ptr<PointInputs> inputs;
};

void set_up(const nlohmann::json& m, WorkerState& st) {
  for (const auto& k : m.at("kernel_paths")) add_kernel_path(k.get<std::string>());
  if (m.contains("gemmbench")) load_foreign_kernels(m["gemmbench"].at("op").get<std::string>(), m["gemmbench"].at("path").get<std::string>());
  st.e.seed = m.at("seed").get<std::uint64_t>();
  if (m.contains("plan")) {  // the parent's plan is not one of its runs (replay)
    WorkerPlan wp = plan_in_worker(m["plan"]);
    st.owner = std::move(wp.owner);
    st.plan = wp.plan;
    st.e.seed = wp.seed;
    st.inputs = std::make_unique<PointInputs>(*st.plan, st.e.seed);
    return;
  }
  for (std::size_t i = 0; i < m.at("runs").size(); ++i) {
    st.e.runs.push_back(run_spec_from_json(m["runs"][i], fmt::format("worker runs[{}]", i)));
    st.e.runs.back().whole_domains = m.at("whole_domains").at(i).get<bool>();
  }
  if (m.contains("filter")) st.e.spec["filter"] = m["filter"];
  const auto db_path = m.at("db").get<std::string>();
  st.db = tuning::open_lookup(db_path);
  st.own_plan = std::make_unique<Plan>(plan_experiment(st.e, st.db.get()));
  st.plan = st.own_plan.get();
  st.inputs = std::make_unique<PointInputs>(*st.plan, st.e.seed);
}

const char* phase_name(PointPhase p) {
  switch (p) {
    case PointPhase::inputs: return "inputs";
    case PointPhase::building: return "building";
    case PointPhase::running: return "running";
  }
  return "?";
}

bool refuse(int fd, const std::string& why) {
  send_message(fd, {{"type", "refused"}, {"message", why}});
  return false;
}

// Measures one point the parent asks for; returns whether the worker must end after it.
bool measure(int fd, const nlohmann::json& m, WorkerState& st) {
  const auto index = m.at("index").get<std::size_t>();
  const Plan& plan = *st.plan;
  if (index >= plan.points.size())
    return refuse(fd, fmt::format("the worker's plan has {} points, not point {}", plan.points.size(), index));
  const PlannedPoint& p = plan.points[index];
  // The parent planned with the tuning database and kernels as they were then.
  if (p.variant->id() != m.at("variant_id").get<std::string>() || p.params != m.at("params").get<ParamValues>())
    return refuse(fd, fmt::format("the worker planned {} {} at point {}, the sweep {} {}: the tuning database or the "
                                  "kernels changed since the sweep was planned",
                                  p.variant->id(), nlohmann::json(p.params).dump(), index,
                                  m["variant_id"].get<std::string>(), m["params"].dump()));
  set_phase_listener([fd, &plan, &p, &st](PointPhase ph) {
    nlohmann::json msg = {{"type", "phase"}, {"phase", phase_name(ph)}};
    if (ph == PointPhase::running) {
      const RunPlan& run = plan.runs[p.run];
      msg["limit_s"] = running_limit(*run.spec, run.devices[p.device]->info(), st.inputs->problem(p), p.prec);
    }
    send_message(fd, msg);
  });
  enter_phase(PointPhase::inputs);
  PointRecord rec = measure_planned_point(m.at("number").get<int>(), plan, p, *st.inputs, st.e.seed);
  set_phase_listener(nullptr);
  const bool lost = rec.status == PointStatus::error && context_lost(rec.message);
  if (lost) {
    rec.status = PointStatus::crashed;
    rec.message = "the device context is unusable after: " + rec.message;
  }
  send_message(fd, {{"type", "record"}, {"record", to_json(rec)}, {"exit", lost}});
  return lost;
}

}  // namespace

int run_worker(int fd) {
  InterruptGuard guard;  // the parent forwards Ctrl-C: the point stops after its current repetition
  WorkerState st;
  nlohmann::json m;
  while (read_message(fd, m)) {
    const std::string type = m.value("type", "");
    try {
      if (type == "setup") {
        set_up(m, st);
        send_message(fd, {{"type", "ready"}, {"points", st.plan->points.size()}});
      } else if (type == "check") {
        send_message(fd, {{"type", "checked"}, {"message", check_device(m.at("device").get<std::string>(), st.e.seed)}});
      } else if (type == "point") {
        if (!st.plan) throw Error("a point before the setup");
        if (measure(fd, m, st)) return 0;
      } else {
        throw Error(fmt::format("unknown request '{}'", type));
      }
    } catch (const std::exception& ex) {
      // Bad input the parent already accepted, or a broken link: nothing to measure on.
      send_message(fd, {{"type", "fatal"}, {"message", ex.what()}});
      return 2;
    }
  }
  return 0;
}

}  // namespace hetbench
