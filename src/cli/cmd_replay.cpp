// hetbench replay EXPERIMENT [--point N ...]: re-runs recorded points exactly, says how
// the context differs first, and judges each replayed point against its record
// (docs/compare.md).
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands.hpp"
#include "compare/folder.hpp"
#include "compare/output.hpp"
#include "compare/replay.hpp"
#include "engine/run_plan.hpp"
#include "hetbench/error.hpp"

namespace hetbench::cli {

namespace {

struct ReplayOpts {
  std::string dir, out = "hetbench-results", format = "table";
  std::vector<int> points;
  std::vector<std::string> fail_on;
  bool strict = false;
  double threshold = 2, max_threshold = 100 * kMaxThreshold;
  StoredExperiments stored;
};

int replay(ReplayOpts& o, const std::string& command_line) {
  const double t = threshold_fraction(o.threshold);
  const double most = max_threshold_fraction(o.max_threshold, t);
  const auto fail_on = parse_verdicts(o.fail_on);
  // store:REF: written from the store into a scratch folder, which goes when the command
  // ends; replay_of then names the stored experiment, not that folder.
  const auto stored = o.stored.reference(o.dir);
  const RecordedExperiment rec = read_experiment(o.stored.folders({o.dir}).at(0));
  Replay r(rec, o.points);
  const auto& diffs = r.differences();
  std::string list;
  for (const auto& d : diffs) list += "\n  - " + to_string(d);
  if (diffs.empty())
    fmt::print(stderr,
               "hetbench: replay of {} ({} points): the context is the one recorded (build, host, devices, "
               "variant code, matrices)\n",
               rec.dir.string(), r.recorded().size());
  else if (o.strict)
    throw Error(fmt::format("--strict: the context differs from the one {} recorded in {} way(s):{}", rec.dir.string(),
                            diffs.size(), list));
  else
    fmt::print(stderr, "hetbench: replay of {} ({} points): the context differs from the recorded one:{}\n",
               rec.dir.string(), r.recorded().size(), list);
  Experiment& e = r.experiment();
  e.out_root = o.out;
  e.format = "none";
  e.command_line = command_line;
  e.worker_plan = Replay::worker_plan(rec, o.points);
  const nlohmann::json gemmbench = e.spec.value("gemmbench", nlohmann::json());
  nlohmann::json points = nlohmann::json::array(), differences = nlohmann::json::array();
  for (const auto* p : r.recorded()) points.push_back((*p)["point"]);
  for (const auto& d : diffs) differences.push_back(to_json(d));
  e.spec = {{"replay_of",
             {{"experiment", stored.is_null() ? std::filesystem::absolute(rec.dir).lexically_normal().string() : o.dir},
              {"name", rec.experiment.value("name", "")},
              {"git_commit", rec.experiment.value("git_commit", "")},
              {"points", points},
              {"differences", differences}}},
            {"seed", e.seed}};
  if (!stored.is_null()) e.spec["replay_of"]["stored"] = stored;
  if (!gemmbench.is_null()) e.spec["gemmbench"] = gemmbench;  // the recorded kernels, for workers and the record
  std::filesystem::path out_dir;
  const int rc = run_plan(e, r.plan(), &out_dir);
  const RecordedExperiment again = read_experiment(out_dir);
  const auto check = compare_replay(rec, r, again, t, most);
  const auto& c = check.comparison;
  fmt::print(stderr, "hetbench: recorded {} against replayed {}\n", rec.dir.string(), out_dir.string());
  print_comparison(c, o.format);
  for (const auto& m : check.clocks) fmt::print(stderr, "hetbench: clock: {}\n", m);
  for (const auto& m : check.mismatches) fmt::print(stderr, "hetbench: replay differs: {}\n", m);
  if (rc) return rc;
  return gate(c, fail_on) || !check.mismatches.empty() ? 1 : 0;
}

}  // namespace

Command add_replay(CLI::App& app, const std::string& command_line) {
  auto* sub = app.add_subcommand("replay", "re-run recorded points exactly and judge them against their records");
  auto o = std::make_shared<ReplayOpts>();
  sub->add_option("experiment", o->dir, "the experiment folder to replay, or store:ID of a stored one")->required();
  o->stored.add_option(sub);
  sub->add_option("--point", o->points, "the recorded point numbers to replay (repeatable; default: all)")
      ->delimiter(',');
  sub->add_flag("--strict", o->strict,
                "refuse when the context differs in any way (or a difference cannot be ruled out)");
  sub->add_option("--out", o->out, "results root folder (the replay's experiment folder is created inside)")
      ->capture_default_str();
  sub->add_option("--threshold", o->threshold, "equivalence threshold of the verdicts, percent (see compare --help)")
      ->capture_default_str();
  sub->add_option("--max-threshold", o->max_threshold,
                  "the widest threshold (percent) a same may rest on (see compare --help)")
      ->capture_default_str();
  sub->add_option("--format", o->format, "stdout format")
      ->check(CLI::IsMember({"table", "json", "csv", "md"}))
      ->capture_default_str();
  sub->add_option("--fail-on", o->fail_on, "exit 1 when a pair has one of these verdicts (slower, ambiguous, ...)")
      ->delimiter(',');
  return {sub, [o, command_line] { return replay(*o, command_line); }};
}

}  // namespace hetbench::cli
