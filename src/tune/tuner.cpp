// plan (whole domains) -> per problem and variant: a space, a strategy, and each new
// evaluation measured by the engine and appended to the experiment folder.
#include "tune/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "engine/measure/interrupt.hpp"
#include "engine/plan/plan.hpp"
#include "engine/measure/progress.hpp"
#include "engine/measure/point_executor.hpp"
#include "engine/record/provenance.hpp"
#include "engine/record/query.hpp"
#include "engine/record/results.hpp"
#include "engine/record/resume.hpp"
#include "engine/measure/clock_lock.hpp"
#include "engine/record/session.hpp"
#include "engine/runner.hpp"
#include "hetbench/error.hpp"
#include "ops/layout_ref.hpp"
#include "tune/search.hpp"
#include "tune/summary.hpp"
#include "tune/ties.hpp"
#include "util/json_file.hpp"
#include "util/random.hpp"

namespace hetbench::tune {

namespace {

using Clock = std::chrono::steady_clock;

// The points of one variant on one problem. A layout is a dimension of the space like a
// parameter (docs/tuning.md): the sizes of a layout op that differ only in their layout
// are one problem, so a task gathers points that are not consecutive in the plan.
struct Task {
  std::vector<std::size_t> all;             // plan indices, pruned points included
  std::vector<const PlannedPoint*> points;  // those that satisfy the constraints
  std::size_t pruned = 0;
  std::vector<std::string> layouts;  // the layouts (Sizes::input) it spans, when more than one
};

std::vector<Task> tasks_of(const Plan& plan) {
  std::vector<bool> layout_op;
  for (const auto& r : plan.runs) layout_op.push_back(op_has_layouts(*r.op));
  std::vector<Task> tasks;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const auto& p = plan.points[i];
    Sizes problem = plan.runs[p.run].sizes[p.size];
    const std::string layout = layout_op[p.run] ? problem.input : "";
    if (layout_op[p.run]) problem.input.clear();
    const auto key = fmt::format("{}|{}|{}|{}|{}", p.run, name(p.prec), nlohmann::json(problem).dump(), p.device,
                                 p.variant->id());
    auto [it, fresh] = index.emplace(key, tasks.size());
    if (fresh) tasks.emplace_back();
    Task& t = tasks[it->second];
    t.all.push_back(i);
    if (p.skip.empty()) t.points.push_back(&p);
    else ++t.pruned;
    if (layout_op[p.run] && std::find(t.layouts.begin(), t.layouts.end(), layout) == t.layouts.end())
      t.layouts.push_back(layout);
  }
  for (auto& t : tasks)
    if (t.layouts.size() < 2) t.layouts.clear();
  return tasks;
}

std::string layout_of_point(const Plan& plan, const PlannedPoint& p) { return plan.runs[p.run].sizes[p.size].input; }

// The axes are the values the plan gave each parameter (pruned points included), so a
// neighbour is one step along the asked range; the layout axis (LAYOUT) indexes the
// task's layouts in the order they were given.
Space space_of(const Plan& plan, const Task& t) {
  const Variant& v = *plan.points[t.all.front()].variant;
  std::vector<Axis> axes;
  for (const auto& pd : v.params) {
    Axis a{pd.name, {}, -1};
    for (auto i : t.all) a.values.push_back(plan.points[i].params.at(pd.name));
    std::sort(a.values.begin(), a.values.end());
    a.values.erase(std::unique(a.values.begin(), a.values.end()), a.values.end());
    auto it = std::find(a.values.begin(), a.values.end(), pd.def);
    if (it != a.values.end()) a.def = static_cast<int>(it - a.values.begin());
    axes.push_back(std::move(a));
  }
  if (!t.layouts.empty()) {
    Axis a{kLayoutAxis, {}, -1};
    for (std::size_t l = 0; l < t.layouts.size(); ++l) {
      a.values.push_back(static_cast<long long>(l));
      if (t.layouts[l].empty()) a.def = static_cast<int>(l);  // the op's default layout
    }
    axes.push_back(std::move(a));
  }
  std::vector<Config> configs;
  for (const auto* p : t.points) {
    Config c;
    for (const auto& a : axes)
      if (a.name == kLayoutAxis && !t.layouts.empty())
        c.push_back(static_cast<int>(std::find(t.layouts.begin(), t.layouts.end(), layout_of_point(plan, *p)) -
                                     t.layouts.begin()));
      else
        c.push_back(static_cast<int>(std::find(a.values.begin(), a.values.end(), p->params.at(a.name)) - a.values.begin()));
    configs.push_back(std::move(c));
  }
  return Space(std::move(axes), std::move(configs));
}

// The configuration of a parameter set in the space; space.size() when a value lies
// outside the asked range or the constraints pruned it. The layout axis takes its default.
std::size_t config_of(const Space& space, const ParamValues& p) {
  Config c;
  for (const auto& a : space.axes()) {
    if (a.name == kLayoutAxis) {
      if (a.def < 0) return space.size();
      c.push_back(a.def);
      continue;
    }
    const auto it = p.find(a.name);
    if (it == p.end()) return space.size();
    const auto v = std::find(a.values.begin(), a.values.end(), it->second);
    if (v == a.values.end()) return space.size();
    c.push_back(static_cast<int>(v - a.values.begin()));
  }
  return space.find(c);
}

// Starts a tuning takes from the GEMM shape model, at most (and at most half the budget).
constexpr std::size_t kModelStarts = 8;

// The op's model's best-predicted configurations of the space (GEMM's shape model), best first, at most
// n (docs/tuning.md): a tuning starts where the model expects the fastest, so that a small
// budget finds what the model alone would take and searches around it. Axes of one value
// (a --param of one value) stay fixed; empty for variants the model does not apply to.
std::vector<ParamValues> model_starts(const Space& space, const Op& op, const Variant& v, const Device& dev,
                                      const Sizes& problem, Precision p, std::size_t n) {
  std::vector<ParamValues> out;
  if (n == 0) return out;
  ParamValues base = v.defaults();
  std::vector<std::string> fixed;
  for (const auto& a : space.axes())
    if (a.name != kLayoutAxis && a.values.size() == 1) {
      base[a.name] = a.values.front();
      fixed.push_back(a.name);
    }
  for (auto& c : op.modelled_configs(v, dev, problem, p, base, fixed, 4 * n)) {
    if (out.size() >= n) break;
    if (config_of(space, c.values) < space.size()) out.push_back(std::move(c.values));
  }
  return out;
}

Measured measured_of(std::size_t config, const nlohmann::json& rec) {
  Measured m{config, false, 0, 0, 0};
  if (rec.value("status", "") != "ok" || !rec.contains("timing")) return m;
  const auto& s = rec["timing"]["seconds"];
  m.median = s.value("median", 0.0);
  m.lo = s.value("ci95_lo", m.median);
  m.hi = s.value("ci95_hi", m.median);
  m.valid = m.median > 0;
  return m;
}

}  // namespace

std::string layouts_text(const std::vector<std::string>& layouts) {
  if (layouts.empty()) return "";
  std::string s;
  for (const auto& l : layouts) s += (s.empty() ? "" : ", ") + (l.empty() ? std::string("(default)") : l);
  return fmt::format(" over layouts {}", s);
}

namespace {

// Higher is better: problems per second.
double score_of(const Measured& m) { return m.valid ? 1 / m.median : kInvalid; }

// The record's headline rate as the results query names it (GFLOP/s where the op is rated
// by its arithmetic, else GB/s).
std::string rate_text(const nlohmann::json& rec) {
  const auto h = query::headline_rate(rec);
  return h ? fmt::format("{:.2f} {}", h->first, h->second) : "?";
}

// Records of earlier sessions, by task and configuration: parameters and the problem's
// input (its layout, where the task spans several).
using ConfigKey = std::pair<ParamValues, std::string>;
using Recorded = std::map<std::size_t, std::map<ConfigKey, nlohmann::json>>;

// The starts recorded with a task's first evaluation (tune.starts), or nullopt when no
// first evaluation is recorded.
std::optional<std::vector<ParamValues>> recorded_starts(const std::map<ConfigKey, nlohmann::json>& mine,
                                                        const std::string& dir) {
  for (const auto& [key, r] : mine) {
    const auto& t = r["tune"];
    if (!t.contains("evaluation") || t["evaluation"] != 1) continue;
    std::vector<ParamValues> out;
    if (!t.contains("starts")) return out;
    const auto where = fmt::format("--resume '{}': point {}", dir, r.value("point", -1));
    if (!t["starts"].is_array()) throw Error(fmt::format("{}: key 'tune.starts': expected an array", where));
    for (std::size_t i = 0; i < t["starts"].size(); ++i)
      out.push_back(params_from_json(t["starts"][i], where, fmt::format("tune.starts[{}]", i)));
    return out;
  }
  return std::nullopt;
}

Recorded recorded_by_task(const std::vector<nlohmann::json>& recs) {
  Recorded out;
  for (const auto& r : recs)
    if (r.contains("tune")) {
      const auto sizes = r.value("sizes", nlohmann::json::object());
      const std::string input = sizes.is_object() ? sizes.value("input", "") : "";
      out[r["tune"].value("task", std::size_t{0})][{r.value("params", ParamValues{}), input}] = r;
    }
  return out;
}

}  // namespace

nlohmann::json to_json(const TuneSettings& s) {
  return {{"strategy", s.strategy}, {"budget", s.budget.text}, {"seed", s.seed}};
}

nlohmann::json recorded_experiment(const std::filesystem::path& dir) {
  const auto path = dir / "experiment.json";
  if (!std::filesystem::exists(path))
    throw Error(fmt::format("--resume '{}': cannot read '{}'", dir.string(), path.string()));
  return read_json_file(path.string());
}

std::pair<Experiment, TuneSettings> recorded_tuning(const std::filesystem::path& dir) {
  return recorded_tuning(recorded_experiment(dir), dir, (dir / "experiment.json").string());
}

std::pair<Experiment, TuneSettings> recorded_tuning(const nlohmann::json& j, const std::filesystem::path& dir,
                                                    const std::string& path) {
  if (!j.contains("tune") || !j["tune"].is_object() || !j.contains("runs") || !j["runs"].is_array())
    throw Error(fmt::format("--resume '{}': '{}' records no tuning (key 'tune')", dir.string(), path));
  // json::value would throw nlohmann's type_error, which names neither file nor key.
  auto text = [&](const nlohmann::json& o, const char* key, const char* def, const std::string& name) {
    if (!o.contains(key)) return std::string(def);
    if (!o[key].is_string()) throw Error(fmt::format("{}: key '{}': expected a string", path, name));
    return o[key].get<std::string>();
  };
  auto seed = [&](const nlohmann::json& o, const char* key, std::uint64_t def, const std::string& name) {
    if (!o.contains(key)) return def;
    if (!o[key].is_number_unsigned())
      throw Error(fmt::format("{}: key '{}': expected a non-negative integer", path, name));
    return o[key].get<std::uint64_t>();
  };
  Experiment e;
  e.name = text(j, "name", "tune", "name");
  e.seed = seed(j, "seed", 0, "seed");
  e.command_line = text(j, "command_line", "", "command_line");
  for (std::size_t i = 0; i < j["runs"].size(); ++i)
    e.runs.push_back(run_spec_from_json(j["runs"][i], fmt::format("{} runs[{}]", path, i)));
  TuneSettings s;
  s.strategy = text(j["tune"], "strategy", "", "tune.strategy");
  s.budget = parse_budget(text(j["tune"], "budget", "", "tune.budget"));
  s.seed = seed(j["tune"], "seed", e.seed, "tune.seed");
  return {e, s};
}

int tune_experiment(Experiment e, const TuneSettings& s, const std::optional<std::filesystem::path>& resume,
                    const ResultHook& on_result, const StartsHook& starts) {
  check_strategy(s.strategy);
  for (auto& r : e.runs) {
    r.whole_domains = true;
    // A layout file of several Arch sections is a dimension of the space: every section
    // (FILE#*), not the one section a run would take for the device (ops/layout_arch.hpp).
    if (const Op* op = op_named(r.op); op && op_has_layouts(*op))
      for (auto& tok : r.sizes)
        if (const auto at = tok.rfind('@'); at != std::string::npos && tok.find('#', at) == std::string::npos)
          tok += "#*";
  }
  e.seed = s.seed;
  const Plan plan = plan_experiment(e);
  const auto tasks = tasks_of(plan);
  // Shared with the watchdog's last words: an evaluation whose kernel never returns is no
  // evaluation (as one cut short), so they close the experiment with what was recorded.
  // The guard stands before the folder is made and until experiment.json is closed.
  std::timed_mutex books;
  ExperimentWriter* writer = nullptr;
  bool closed = false;
  std::vector<TuningResult> results;
  int next_point = 0;
  auto close = [&](bool stopped) {
    nlohmann::json summaries = nlohmann::json::array();
    for (const auto& r : results) summaries.push_back(to_json(r));
    writer->finish({{"status", stopped ? "interrupted" : "complete"}, {"points", next_point}, {"tuning", summaries}});
  };
  InterruptGuard guard([&] {
    close_when_ready(books, [&] { return writer != nullptr; }, [&] { return closed; }, [&] {
      close(true);
      fmt::print(stderr, "\nhetbench: interrupted; {} evaluations recorded in {}\n", next_point, writer->dir().string());
    });
  });
  const auto clocks = lock_experiment_clocks(e.lock_clocks, plan);  // before the folder: a refusal records nothing
  std::unique_ptr<ExperimentSession> session;
  std::vector<nlohmann::json> earlier;
  if (resume) {
    session = ExperimentSession::lock(*resume);
    session->reopen();
    earlier = read_results(*resume);
  } else {
    auto exp = experiment_json(e, plan);
    exp["tune"] = to_json(s);
    if (clocks) exp["clock_lock"] = clocks->recorded();
    session = ExperimentSession::create(e, std::move(exp));
  }
  {
    std::lock_guard<std::timed_mutex> l(books);
    writer = &session->writer();
    next_point = static_cast<int>(earlier.size());
  }
  fmt::print(stderr, "hetbench: {} in {}\n", resume ? "resuming the tuning" : "recording", writer->dir().string());
  for (const auto& why : plan.left_out) fmt::print(stderr, "hetbench: {}\n", why);
  const Recorded recorded = recorded_by_task(earlier);
  double time_used = 0;  // by the tasks before, earlier sessions included

  const auto executor = make_point_executor(e, plan, "");
  for (std::size_t k = 0; k < tasks.size() && !interrupted(); ++k) {
    const Task& t = tasks[k];
    const PlannedPoint& head = plan.points[t.all.front()];
    const RunPlan& run = plan.runs[head.run];
    const Space space = space_of(plan, t);
    const auto mine = recorded.count(k) ? recorded.at(k) : std::map<ConfigKey, nlohmann::json>{};
    double offset_s = 0;  // the task's time in earlier sessions
    for (const auto& [pv, r] : mine) {
      if (r.value("variant_id", "") != head.variant->id())
        throw Error(fmt::format("--resume '{}': point {} of task {} is {}, the plan has {} there: the selectors differ",
                                writer->dir().string(), r.value("point", -1), k, r.value("variant_id", ""),
                                head.variant->id()));
      offset_s = std::max(offset_s, r["tune"].value("elapsed_s", 0.0));
    }
    // Where the search starts, after the defaults. Recorded with the task's first
    // evaluation: a resume repeats the search even where the database changed since
    // (by this tuning's own entries of earlier tasks, for one).
    auto start_params = recorded_starts(mine, writer->dir().string());
    const bool resumed = start_params.has_value();
    if (!resumed)
      start_params = starts ? starts(TaskRef{*run.devices[head.device], *head.variant, *run.op, head.prec,
                                             run.sizes[head.size], e.seed})
                            : std::vector<ParamValues>{};
    const std::size_t budget = s.budget.evaluations(space.size());
    // The shape model's starts come first, then the database's; recorded with the others,
    // so that a resume starts where the first session did.
    std::size_t from_model = 0;
    if (!resumed) {
      auto model = model_starts(space, *run.op, *head.variant, *run.devices[head.device], run.sizes[head.size], head.prec,
                                std::min<std::size_t>(kModelStarts, std::max<std::size_t>(1, budget / 2)));
      from_model = model.size();
      start_params->insert(start_params->begin(), model.begin(), model.end());
    }
    std::vector<std::size_t> start_configs;
    for (const auto& pv : *start_params)
      if (const auto i = config_of(space, pv);
          i < space.size() && std::find(start_configs.begin(), start_configs.end(), i) == start_configs.end())
        start_configs.push_back(i);
    // A time budget is shared by the tasks left, so time a small space leaves over goes on.
    const double time_share = s.budget.seconds() > 0 ? (s.budget.seconds() - time_used) / (tasks.size() - k) : 0;
    fmt::print(stderr, "hetbench: tuning {} on {} in {} at {}: {} configurations ({} pruned by constraints), budget {}\n",
               head.variant->id(), run.devices[head.device]->id(), name(head.prec),
               format_sizes(run.sizes[head.size]) + layouts_text(t.layouts),
               space.size(), t.pruned, s.budget.seconds() > 0 ? fmt::format("{:.0f}s", time_share) : std::to_string(budget));
    if (from_model)
      fmt::print(stderr, "hetbench: the search starts from the shape model's {} best-predicted configuration(s)\n",
                 from_model);
    if (start_params->size() > from_model)
      fmt::print(stderr, "hetbench: the search starts from {} parameter set(s) of the tuning database{}\n",
                 start_configs.size() - std::min(start_configs.size(), from_model),
                 start_configs.size() < start_params->size()
                     ? fmt::format(" ({} more lie outside this space)", start_params->size() - start_configs.size())
                     : "");
    const auto start = Clock::now();
    auto elapsed = [&] { return offset_s + std::chrono::duration<double>(Clock::now() - start).count(); };
    std::vector<Measured> measured;
    std::vector<nlohmann::json> recs;
    double measuring_s = 0;
    std::size_t measured_now = 0;
    ProgressLine progress;
    // The search's own time before each evaluation: from the end of the one before (the
    // start, for the first) to this one's start (recorded as tune.search_s; T4's
    // search_algorithm time).
    auto last_end = start;
    auto objective = [&](std::size_t i) {
      const double search_s = std::chrono::duration<double>(Clock::now() - last_end).count();
      struct Mark {  // the evaluation's end, however it returns
        Clock::time_point& at;
        ~Mark() { at = Clock::now(); }
      } mark{last_end};
      const PlannedPoint& p = *t.points[i];
      nlohmann::json rec;
      if (auto it = mine.find({p.params, layout_of_point(plan, p)}); it != mine.end()) {
        rec = it->second;
      } else {
        const auto t0 = Clock::now();
        rec = to_json(executor->measure(next_point, p));
        // A point cut short by Ctrl-C is no evaluation: a resume measures it in full.
        if (interrupted()) return kInvalid;
        std::lock_guard<std::timed_mutex> l(books);
        ++next_point;
        measuring_s += std::chrono::duration<double>(Clock::now() - t0).count();
        ++measured_now;
      }
      measured.push_back(measured_of(i, rec));
      const Pick pick = pick_best(measured, space);
      if (!rec.contains("tune")) {
        rec["tune"] = {{"task", k}, {"strategy", s.strategy}, {"seed", s.seed}, {"evaluation", measured.size()},
                       {"budget", budget}, {"elapsed_s", elapsed()}, {"search_s", search_s}};
        if (measured.size() == 1) rec["tune"]["starts"] = *start_params;
        if (pick.found) {
          const auto& b = recs.size() > pick.best ? recs[pick.best] : rec;
          rec["tune"]["best_so_far"] = {{"point", b.value("point", -1)}, {"params", b["params"]},
                                        {"median_s", measured[pick.best].median}};
        }
        std::lock_guard<std::timed_mutex> l(books);
        writer->append(rec);
      }
      recs.push_back(rec);
      // The fastest so far never goes down; the configuration kept may be a simpler one
      // tied with it (docs/tuning.md), which the line names beside it.
      auto params_of = [&](std::size_t i) { return format_params(recs[i].value("params", ParamValues{})); };
      const std::string best =
          !pick.found ? "none yet"
          : pick.best == pick.fastest
              ? fmt::format("{} ({})", rate_text(recs[pick.fastest]), params_of(pick.fastest))
              : fmt::format("{} ({}; keeping the tied {})", rate_text(recs[pick.fastest]), params_of(pick.fastest),
                            params_of(pick.best));
      double left = -1;
      if (s.budget.seconds() > 0) left = std::max(0.0, s.budget.seconds() - time_used - elapsed());
      else if (measured_now > 0) left = measuring_s / measured_now * (budget - measured.size());
      progress.update(fmt::format("tune: {}/{} evaluations, best {}, {} left", measured.size(), budget, best,
                                  format_time_left(left)));
      return score_of(measured.back());
    };
    Search search(space, objective, budget,
                  [&] { return interrupted() || (s.budget.seconds() > 0 && elapsed() >= time_share); });
    run_strategy(s.strategy, search, splitmix64(s.seed + k), start_configs);
    progress.end();
    time_used += elapsed();
    TuningResult r = summarize(space, measured, recs, t.pruned, s, elapsed(), writer->dir().string());
    if (recs.empty()) {  // interrupted before its first evaluation
      r.op = run.op->name();
      r.device = run.devices[head.device]->id();
      r.variant = head.variant->name;
      r.variant_id = head.variant->id();
      r.precision = name(head.prec);
    }
    r.device_ref = run.devices[head.device].get();
    r.variant_ref = head.variant;
    r.op_ref = run.op;
    r.problem = run.sizes[head.size];
    if (r.found) {  // the best's own problem: its layout, where the task spans several
      const Pick pick = pick_best(measured, space);
      r.problem = run.sizes[t.points[measured[pick.best].config]->size];
      if (op_has_layouts(*run.op)) r.layout = layout_ref(run.op->name(), r.problem);  // spmv's input is a matrix
    }
    r.prec = head.prec;
    {
      std::lock_guard<std::timed_mutex> l(books);
      results.push_back(std::move(r));
    }
    if (on_result && !interrupted()) on_result(results.back());
  }
  const bool stopped = interrupted();
  {
    std::lock_guard<std::timed_mutex> l(books);
    close(stopped);
    closed = true;
  }
  print_summary(results);
  fmt::print(stderr, "hetbench: {} evaluations recorded{}; results in {}\n", next_point, stopped ? ", interrupted" : "",
             writer->dir().string());
  return stopped ? kInterruptedExit : 0;
}

}  // namespace hetbench::tune
