#include "tune/ship.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "engine/record/query.hpp"
#include "engine/record/results.hpp"
#include "hetbench/error.hpp"
#include "tune/db_hook.hpp"
#include "tune/search.hpp"
#include "tuning/db.hpp"
#include "util/json_file.hpp"

namespace hetbench::tune {

namespace fs = std::filesystem;

namespace {

// The size tokens of a shape file: the first word of each line, '#' starting a comment;
// a token already seen is skipped.
void read_shapes(const fs::path& file, std::vector<std::string>& out, const std::string& where) {
  std::ifstream in(file);
  if (!in) throw Error(fmt::format("{}: cannot read the shape file '{}'", where, file.string()));
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    const auto a = line.find_first_not_of(" \t\r");
    if (a == std::string::npos) continue;
    const std::string tok = line.substr(a, line.find_first_of(" \t\r", a) - a);
    if (std::find(out.begin(), out.end(), tok) == out.end()) out.push_back(tok);
  }
}

// A number at a dotted path of a record (the results query's field), or null.
const nlohmann::json* numeric_at(const nlohmann::json& r, const char* path) {
  const auto* v = query::field(r, path);
  return v && v->is_number() ? v : nullptr;
}

}  // namespace

ShipCampaign read_ship_campaign(const fs::path& spec) {
  const auto j = read_json_file(spec.string());
  const std::string file = spec.string();
  if (!j.is_object()) throw Error(fmt::format("{}: a tuning campaign must be a JSON object", file));
  static const std::set<std::string> top{"about", "devices", "output", "measure", "tasks"};
  for (const auto& [k, v] : j.items())
    if (!top.count(k))
      throw Error(fmt::format("{}: '{}': unknown key (a campaign has about, devices, output, measure, tasks)", file, k));
  ShipCampaign c;
  c.spec = spec;
  const fs::path base = spec.parent_path();
  c.about = j.value("about", "");
  if (!j.contains("output") || !j["output"].is_string())
    throw Error(fmt::format("{}: 'output': missing or not a string (the shipped file to write)", file));
  c.output = base / j["output"].get<std::string>();
  if (!j.contains("tasks") || !j["tasks"].is_array() || j["tasks"].empty())
    throw Error(fmt::format("{}: 'tasks': expected a non-empty list", file));
  const nlohmann::json measure = j.value("measure", nlohmann::json::object());
  if (!measure.is_object()) throw Error(fmt::format("{}: 'measure': expected an object of a run's measurement keys", file));
  for (std::size_t i = 0; i < j["tasks"].size(); ++i) {
    const std::string where = fmt::format("{}: tasks[{}]", file, i);
    const auto& t = j["tasks"][i];
    if (!t.is_object()) throw Error(fmt::format("{}: a task must be a JSON object", where));
    ShipTask task;
    nlohmann::json run = measure;
    if (j.contains("devices")) run["devices"] = j["devices"];
    for (const auto& [k, v] : t.items())
      if (k != "shapes" && k != "strategy" && k != "budget") run[k] = v;
    if (!t.contains("shapes") || !t["shapes"].is_array() || t["shapes"].empty())
      throw Error(fmt::format("{}: 'shapes': expected a non-empty list of shape files", where));
    for (const auto& f : t["shapes"]) {
      if (!f.is_string()) throw Error(fmt::format("{}: 'shapes': expected file names, not {}", where, f.dump()));
      read_shapes(base / f.get<std::string>(), task.shapes, where);
    }
    if (task.shapes.empty()) throw Error(fmt::format("{}: 'shapes': the files hold no shape", where));
    run["sizes"] = nlohmann::json::array({task.shapes.front()});
    task.run = run_spec_from_json(run, where);
    if (t.contains("strategy")) {
      if (!t["strategy"].is_string()) throw Error(fmt::format("{}: 'strategy': expected a name", where));
      task.strategy = t["strategy"];
    }
    try {
      check_strategy(task.strategy);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: 'strategy': {}", where, e.what()));
    }
    if (!t.contains("budget") || !(t["budget"].is_string() || t["budget"].is_number_integer()))
      throw Error(fmt::format("{}: 'budget': missing (evaluations, a fraction '15%' or a time '90s')", where));
    task.budget = parse_budget(t["budget"].is_string() ? t["budget"].get<std::string>() : t["budget"].dump());
    c.tasks.push_back(std::move(task));
  }
  return c;
}

bool beats_the_model(const nlohmann::json& best, const nlohmann::json& model, std::string& why) {
  const auto b = query::headline_rate(best), m = query::headline_rate(model);
  const auto* median = numeric_at(model, "timing.seconds.median");
  const auto* lo = numeric_at(model, "timing.seconds.ci95_lo");
  const auto* best_median = numeric_at(best, "timing.seconds.median");
  const auto* best_hi = numeric_at(best, "timing.seconds.ci95_hi");
  if (!b || !m || !median || !lo || !best_median || !best_hi || lo->get<double>() <= 0 || best_hi->get<double>() <= 0) {
    why = "no rate or interval recorded to compare";
    return true;  // nothing to judge by: the tuned entry stands
  }
  if (best.value("params", nlohmann::json()) == model.value("params", nlohmann::json())) {
    why = "the best found is the tuning's first start (the op's model's choice, else an entry tuned before)";
    return false;
  }
  // The model's rate at its interval's short end, the best's at its long end.
  const double model_hi = m->first * median->get<double>() / lo->get<double>();
  const double best_lo = b->first * best_median->get<double>() / best_hi->get<double>();
  if (best_lo <= model_hi) {
    why = fmt::format("the first start {:.4g} {} (up to {:.4g}), the best found {:.4g} (from {:.4g})", m->first,
                      m->second, model_hi, b->first, best_lo);
    return false;
  }
  return true;
}

ShipSummary ship_campaign(const ShipCampaign& c, const fs::path& out, double deadline_s, std::uint64_t seed) {
  fs::create_directories(out);
  const fs::path db_path = fs::absolute(out / "campaign.db");
  fs::remove(db_path);
  // The campaign starts from nothing: no shipped layer, and the campaign's own database
  // as the one planning reads (this process runs the campaign and nothing else).
  ::setenv("HETBENCH_SHIPPED_TUNING", "none", 1);
  ::setenv("HETBENCH_DB", db_path.c_str(), 1);
  tuning::TuningDb db(db_path.string());
  ShipSummary sum;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& task : c.tasks)
    for (const auto& shape : task.shapes) {
      const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (deadline_s > 0 && used > deadline_s) {
        fmt::print(stderr, "hetbench: db ship: deadline ({:.0f} s): not tuned: {} {} {}\n", deadline_s, task.run.op,
                   fmt::join(task.run.variants, ","), shape);
        ++sum.left_out;
        continue;
      }
      Experiment e;
      e.runs = {task.run};
      e.runs[0].sizes = {shape};
      e.name = "ship-" + task.run.op;
      e.out_root = (out / "exp").string();
      e.seed = seed;
      e.spec["seed"] = seed;
      e.spec["db"] = db_path.string();
      TuneSettings s;
      s.strategy = task.strategy;
      s.budget = task.budget;
      s.seed = seed;
      if (const int rc = tune_experiment(e, s, std::nullopt, database_hook(db, seed), database_starts(db, 3)); rc != 0)
        throw Error(fmt::format("db ship: the tuning of {} {} ended with status {}", task.run.op, shape, rc));
      ++sum.tuned;
    }
  // An entry ships only where the campaign measured it faster than the op's own choice
  // without it (the tuning's first start) beyond both confidence intervals: elsewhere the
  // model, which needs no file, gives as much.
  nlohmann::json kept = nlohmann::json::array();
  const auto entries = db.list();
  sum.entries = entries.size();
  for (const auto& e : entries) {
    const auto records = read_results(e.experiment);
    const nlohmann::json* best = nullptr;
    const nlohmann::json* model = nullptr;
    nlohmann::json starts;
    for (const auto& r : records) {
      if (r.value("point", -1) == e.point) best = &r;
      if (starts.is_null() && r.contains("tune") && r["tune"].contains("starts")) starts = r["tune"]["starts"];
    }
    if (starts.is_array() && !starts.empty())
      for (const auto& r : records)
        if (r.value("status", "") == "ok" && r.value("params", nlohmann::json()) == starts[0]) {
          model = &r;
          break;
        }
    std::string why;
    if (best && model && !beats_the_model(*best, *model, why)) {
      fmt::print(stderr, "hetbench: db ship: not shipped: {} {} {} {}: {}\n", e.variant_id, name(e.precision),
                 e.problem.label, e.storage, why);
      continue;
    }
    auto j = to_json(e);
    j["id"] = static_cast<std::int64_t>(kept.size() + 1);
    kept.push_back(std::move(j));
  }
  sum.shipped = kept.size();
  fs::create_directories(c.output.parent_path());
  // Written beside and renamed over: a failed write never leaves half a shipped file.
  const fs::path tmp = c.output.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!(f << nlohmann::json{{"hetbench_tuning_db", 1}, {"entries", kept}}.dump(2) << '\n') || !f.flush())
      throw Error(fmt::format("db ship: cannot write '{}'", tmp.string()));
  }
  fs::rename(tmp, c.output);
  return sum;
}

}  // namespace hetbench::tune
