// plan -> for each point: measure -> record -> write -> report.
#include "engine/runner.hpp"

#include "engine/measure/clock_lock.hpp"
#include "engine/record/query.hpp"
#include "engine/run_plan.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <functional>
#include <optional>

#include <set>

#include <fmt/format.h>

#include "engine/measure/interrupt.hpp"
#include "engine/measure/measure.hpp"
#include "engine/plan/plan.hpp"
#include "engine/measure/point_executor.hpp"
#include "engine/measure/progress.hpp"
#include "engine/record/provenance.hpp"
#include "engine/record/report.hpp"
#include "engine/record/results.hpp"
#include "engine/record/resume.hpp"
#include "engine/record/session.hpp"
#include "util/text_table.hpp"
#include "hetbench/error.hpp"
#include "hetbench/record.hpp"
#include "tuning/db.hpp"
#include "tuning/shipped.hpp"

namespace hetbench {

PointRecord start_record(int index, const RunPlan& run, const PlannedPoint& p, std::uint64_t seed) {
  const Variant& v = *p.variant;
  const Device& dev = *run.devices[p.device];
  PointRecord rec;
  rec.point = index;
  rec.op = run.op->name();
  rec.variant = v.name;
  rec.variant_id = v.id();
  rec.kind = v.kind;
  rec.backend = v.backend;
  rec.device = dev.id();
  rec.device_name = dev.info().name;
  rec.precision = p.prec;
  rec.sizes = run.sizes[p.size];
  rec.params = p.params;
  if (!p.param_source.empty()) rec.param_source = p.param_source;
  rec.auto_choice = p.auto_choice;
  rec.seed = seed;
  rec.time = now_iso8601();
  return rec;
}

PointRecord interrupted_record(int index, const RunPlan& run, const PlannedPoint& p, std::uint64_t seed) {
  PointRecord rec = start_record(index, run, p, seed);
  rec.status = PointStatus::interrupted;
  rec.message = fmt::format("interrupted: the point was still running {:.0f} s after the signal (a kernel that does not "
                            "return?) and the process ended",
                            kInterruptGraceS);
  return rec;
}

namespace {

void measure(const PlannedPoint& p, const RunPlan& run, PointInputs& inputs, PointRecord& rec) {
  try {
    const Problem& prob = inputs.problem(p);
    DeviceBuffers& bufs = inputs.buffers(p);
    rec.flops = prob.flops;
    rec.min_bytes = prob.min_bytes;
    rec.features = prob.features;
    measure_point(*run.devices[p.device], prob, bufs, *p.variant, p.params, *run.op, measure_policy(*run.spec), rec);
  } catch (const BuildError& e) {
    rec.status = PointStatus::error;
    rec.error_stage = ErrorStage::build;
    rec.message = e.what();
  } catch (const PointError& e) {
    rec.status = PointStatus::error;
    rec.error_stage = ErrorStage::run;
    rec.message = e.what();
  } catch (const std::bad_alloc&) {
    // The host ran out of memory for this point's problem or buffers: the point fails,
    // and the next ones (smaller, or on another device) are still measured.
    inputs.release();
    rec.status = PointStatus::error;
    rec.error_stage = ErrorStage::run;
    rec.message = fmt::format("out of host memory building or measuring the problem at {}", format_sizes(run.sizes[p.size]));
  }
}

}  // namespace

PointRecord measure_planned_point(int index, const Plan& plan, const PlannedPoint& p, PointInputs& inputs,
                                  std::uint64_t seed) {
  const RunPlan& run = plan.runs[p.run];
  PointRecord rec = start_record(index, run, p, seed);
  if (!p.input_error.empty()) {
    rec.status = PointStatus::error;
    rec.error_stage = ErrorStage::input;
    rec.message = p.input_error;
  } else if (!p.skip.empty()) {
    rec.status = PointStatus::skipped;
    rec.message = p.skip;
  } else {
    measure(p, run, inputs, rec);
  }
  return rec;
}

namespace {

// The experiment planned against its tuning database (read only: a missing file means
// nothing is tuned yet); `user_db` is the database's path where the user has one.
Plan plan_with_database(const Experiment& e, std::string* user_db = nullptr) {
  const auto db_path = tuning::resolve_db_path(e.db);
  const auto db = tuning::open_lookup(db_path);
  if (user_db) *user_db = db->user() ? db_path : std::string();
  return plan_experiment(e, db.get());
}

}  // namespace

int run_experiment(const Experiment& e, std::filesystem::path* dir, const ResumeOptions* resume) {
  std::string user_db;
  const Plan plan = plan_with_database(e, &user_db);
  return run_plan(e, plan, dir, user_db, resume);
}

int print_planned(const Experiment& e) {
  const Plan plan = plan_with_database(e);
  std::vector<std::vector<std::string>> rows{
      {"#", "device", "op", "prec", "size", "variant", "params", "from", "note", "name (--filter)"}};
  std::size_t measured = 0;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const auto& p = plan.points[i];
    const auto& run = plan.runs[p.run];
    // "K=V,K=V" as the result tables write parameters (format_params's ';' is the key form).
    const std::string params = query::params_text(nlohmann::json(p.params));
    std::string from;
    std::set<std::string> sources;
    for (const auto& [k, why] : p.param_source) sources.insert(why.substr(0, why.find(':')));
    for (const auto& src : sources) from += (from.empty() ? "" : ", ") + src;
    std::string note = !p.input_error.empty() ? "input error: " + p.input_error
                       : !p.skip.empty()      ? "skipped: " + p.skip
                       : p.auto_choice.is_object() ? "auto: " + p.auto_choice.value("reason", "")
                                                   : "";
    measured += p.skip.empty() && p.input_error.empty();
    rows.push_back({std::to_string(i), run.devices[p.device]->id(), run.op->name(), name(p.prec),
                    query::sizes_text(run.op->name(), name(p.prec), nlohmann::json(run.sizes[p.size])),
                    p.variant->name, params.empty() ? "-" : params, from.empty() ? "-" : from, note,
                    point_name(plan, p)});
  }
  if (e.format == "md") fmt::print("{}", markdown_table(rows));
  else fmt::print("{}", aligned_table(rows, std::vector<bool>(rows[0].size(), false)));
  for (const auto& why : plan.left_out) fmt::print(stderr, "hetbench: {}\n", why);
  fmt::print(stderr, "hetbench: dry run: {} points planned, {} to measure; nothing was measured or recorded\n",
             plan.points.size(), measured);
  return 0;
}

int run_plan(const Experiment& e, const Plan& plan, std::filesystem::path* dir, const std::string& tuning_db,
             const ResumeOptions* resume) {
  check_report_files(e.report_files);  // before anything is measured
  // The records and counts, shared with the watchdog's last words: a point whose kernel
  // never returns is recorded as interrupted and the experiment closed while this thread
  // is still stuck in the driver. The guard stands before the folder is made and until
  // experiment.json is closed: a signal in between would leave it `running`.
  std::timed_mutex books;
  std::optional<std::size_t> running;
  ExperimentWriter* writer = nullptr;
  bool closed = false;
  std::function<void(bool)> close;
  std::function<void(const nlohmann::json&)> count;
  std::unique_ptr<ExperimentSession> session;
  ResumeState state;
  InterruptGuard guard([&] {
    close_when_ready(books, [&] { return writer != nullptr; }, [&] { return closed; }, [&] {
      if (running) {
        const PlannedPoint& p = plan.points[*running];
        auto j = to_json(interrupted_record(static_cast<int>(*running), plan.runs[p.run], p, e.seed));
        writer->append(j);
        count(j);
        state.finished[*running] = std::move(j);
      }
      close(true);
      fmt::print(stderr, "\nhetbench: interrupted; {}; results in {}\n",
                 running ? "the running point did not stop and is recorded as interrupted" : "experiment closed",
                 writer->dir().string());
    });
  });
  // Before the folder is made: a refused lock records nothing. Given back when this
  // function ends (before the guard goes), or by the guard's forced exit.
  const auto clocks = lock_experiment_clocks(e.lock_clocks, plan);
  if (resume) {
    session = ExperimentSession::lock(resume->dir);
    // Matched before the folder is touched: a refused resume changes nothing.
    state = match_records(plan, e.seed, read_results(resume->dir), *resume);
    session->reopen();
    if (state.retried) session->writer().replace_records(state.kept);
  } else {
    auto ej = experiment_json(e, plan);
    ej["tuning_db"] = tuning_db.empty() ? nlohmann::json(nullptr) : nlohmann::json(tuning_db);
    if (clocks) ej["clock_lock"] = clocks->recorded();
    session = ExperimentSession::create(e, std::move(ej));
  }
  std::size_t done = 0;
  int failed = 0, errors = 0;
  count = [&](const nlohmann::json& j) {
    const std::string st = j.value("status", "");
    failed += st == "failed";
    errors += st != "ok" && st != "failed" && st != "skipped";  // error, crashed, timeout, ...
    ++done;
  };
  close = [&](bool stopped) {
    std::size_t points = 0;
    for (const auto& f : state.finished) points += f.has_value();
    writer->finish({{"status", stopped ? "interrupted" : "complete"},
                    {"points", points},
                    {"planned", plan.points.size()},
                    {"failed", failed},
                    {"errors", errors}});
  };
  state.finished.resize(plan.points.size());
  {
    std::lock_guard<std::timed_mutex> l(books);
    writer = &session->writer();
  }
  if (dir) *dir = writer->dir();
  for (const auto& f : state.finished)
    if (f) count(*f);
  if (resume)
    fmt::print(stderr, "hetbench: resuming {}: {} of {} points finished{}\n", writer->dir().string(), done,
               plan.points.size(), state.retried ? fmt::format(", {} to measure again", state.retried) : "");
  else
    fmt::print(stderr, "hetbench: recording in {}\n", writer->dir().string());
  for (const auto& why : plan.left_out) fmt::print(stderr, "hetbench: {}\n", why);

  {
    const auto executor = make_point_executor(e, plan, tuning_db);
    ProgressLine progress(true);
    double measuring_s = 0;
    std::size_t measured_now = 0;
    for (std::size_t i = 0; i < plan.points.size(); ++i) {
      if (interrupted()) break;
      if (state.finished[i]) continue;
      const auto t0 = std::chrono::steady_clock::now();
      {
        std::lock_guard<std::timed_mutex> l(books);
        running = i;
      }
      PointRecord rec = executor->measure(static_cast<int>(i), plan.points[i]);
      measuring_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      ++measured_now;
      auto j = to_json(rec);
      std::lock_guard<std::timed_mutex> l(books);
      running.reset();
      writer->append(j);
      count(j);
      progress.clear();
      print_progress(j);
      progress.update(points_progress_text(e.name, done, plan.points.size(), failed + errors, measuring_s, measured_now));
      state.finished[i] = std::move(j);
    }
  }
  const bool stopped = interrupted();
  {
    std::lock_guard<std::timed_mutex> l(books);
    close(stopped);
    closed = true;
  }
  std::vector<nlohmann::json> records;
  for (auto& f : state.finished)
    if (f) records.push_back(std::move(*f));
  const auto context = report_context(writer->experiment(), writer->dir().string());
  print_report(records, e.format, e.best_only, context);
  write_report_files(e.report_files, records, e.best_only, context);
  fmt::print(stderr, "hetbench: {} points, {} failed validation, {} errors{}; results in {}\n", records.size(), failed,
             errors, stopped ? ", interrupted" : "", writer->dir().string());
  if (stopped) return kInterruptedExit;
  return failed || errors ? 1 : 0;
}

}  // namespace hetbench
