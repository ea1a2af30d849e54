// hetbench check SPEC [EXPERIMENT...]: a campaign spec's targets, met or missed, over the
// experiment it describes (run now) or over experiments already recorded
// (docs/results-query.md). Exit 0 when every target is met, 1 when one is missed.
#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "engine/record/query.hpp"
#include "engine/record/results.hpp"
#include "engine/runner.hpp"
#include "hetbench/error.hpp"
#include "util/json_file.hpp"
#include "util/text_table.hpp"

namespace hetbench::cli {

namespace {

namespace fs = std::filesystem;

// Every record of the folders, each tagged with its folder's name as "experiment", so that
// a baseline is paired within the same run unless a target's `by` leaves it out, and, where
// a target divides by a device fact (`with_facts`), with its device's description from
// experiment.json as "device_facts" (several KiB each: not copied into records otherwise).
std::vector<nlohmann::json> tagged_records(const std::vector<std::string>& dirs, bool with_facts) {
  std::vector<nlohmann::json> out;
  for (const auto& d : dirs) {
    if (!fs::is_directory(d)) throw Error(fmt::format("check: '{}' is not an experiment folder", d));
    const std::string name = fs::path(d).lexically_normal().filename().string();
    std::map<std::string, nlohmann::json> facts;
    if (const auto meta = fs::path(d) / "experiment.json"; with_facts && fs::exists(meta)) {
      const auto e = read_json_file<nlohmann::json>(meta.string());
      if (e.contains("devices") && e["devices"].is_array())
        for (const auto& dev : e["devices"])
          if (dev.is_object() && dev.contains("id") && dev["id"].is_string()) facts[dev["id"]] = dev;
    }
    for (auto& r : read_results(d)) {
      r["experiment"] = name.empty() ? fs::path(d).lexically_normal().parent_path().filename().string() : name;
      if (auto it = facts.find(r.value("device", "")); it != facts.end()) r["device_facts"] = it->second;
      out.push_back(std::move(r));
    }
  }
  return out;
}

void print_result(const query::Check& c, const query::CheckResult& res, const std::string& format) {
  if (format == "jsonl") {
    fmt::print("{}\n", res.to_json(c).dump());
    return;
  }
  const bool paired = c.baseline || !c.per_device.empty();
  fmt::print("\n{} ({}{})\n", c.name, c.metric.name,
             c.baseline ? ", own ÷ baseline" : paired ? ", own ÷ the device's " + c.per_device : "");
  if (!c.description.empty()) fmt::print("  {}\n", c.description);
  std::vector<std::vector<std::string>> rows;
  if (paired) rows.push_back({"group", "own", c.metric.name, "baseline", c.metric.name, "ratio"});
  else rows.push_back({"group", "best", c.metric.name});
  for (const auto& r : res.rows) {
    if (paired)
      rows.push_back({r.group, r.own, fmt::format("{:.4g}", r.value), r.base, fmt::format("{:.4g}", r.base_value),
                      fmt::format("{:.3f}", r.ratio)});
    else
      rows.push_back({r.group, r.own, fmt::format("{:.4g}", r.value)});
  }
  if (rows.size() > 1) {
    std::vector<bool> right(rows[0].size());
    for (std::size_t i = 0; i < right.size(); ++i) right[i] = i == 2 || i >= 4;
    fmt::print("{}", format == "md" ? markdown_table(rows) : aligned_table(rows, right));
  }
  for (const auto& u : res.unpaired) fmt::print("  not counted: {}\n", u);
  fmt::print("{}: {}\n", c.name, res.verdict.text);
}

}  // namespace

Command add_check(CLI::App& app, const std::string& command_line) {
  auto* sub = app.add_subcommand(
      "check", "run a campaign spec (or read experiments already recorded) and print each of its targets met or missed");
  sub->footer(
      "A spec is a sweep spec (docs/spec-format.md) with \"targets\": each selects records, optionally a baseline "
      "in the same group, groups them, takes each group's best by a metric and checks the geometric mean, minimum "
      "or maximum against at_least / at_most (docs/results-query.md). Exit: 0 every target met, 1 one missed (or the "
      "run failed), 2 bad input.");
  struct Opts {
    std::string spec;
    std::vector<std::string> dirs;
    std::string filter;
    Common c;
    Measure m;
    Isolation iso;
    StoredExperiments stored;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("spec", o->spec, "campaign spec: a sweep spec with targets (bench/targets/)")->required();
  sub->add_option("experiments", o->dirs,
                  "experiment folders (or store:ID) to check instead of running the spec's experiment");
  o->stored.add_option(sub);
  add_common(sub, o->c);
  add_measure(sub, o->m);
  add_isolation(sub, o->iso, true);
  sub->add_option("--filter", o->filter, kFilterHelp);
  return {sub, [o, sub, command_line] {
            const auto spec = read_json_file(o->spec);
            const auto checks = query::checks_of(spec, o->spec);
            if (checks.empty()) throw Error(fmt::format("check: '{}' has no \"targets\"", o->spec));
            int rc = 0;
            std::vector<std::string> dirs = o->stored.folders(o->dirs);
            // --filter narrows the run the spec describes; recorded folders are checked whole.
            if (!dirs.empty() && sub->count("--filter"))
              throw Error(fmt::format("check: --filter '{}' narrows the spec's own run, not the experiment folders "
                                      "given: check them without it, or narrow the targets' \"select\"",
                                      o->filter));
            if (dirs.empty()) {
              if (!spec.contains("runs") && !spec.contains("op"))
                throw Error(fmt::format("check: '{}' describes no experiment (no \"runs\" or \"op\"): name the "
                                        "experiment folders to check",
                                        o->spec));
              Experiment e = experiment_from_file(o->spec);
              for (auto& r : e.runs) apply_measure(sub, o->m, r);
              e.command_line = command_line;
              apply(o->c, e, sub->count("--seed") > 0);
              if (sub->count("--filter")) set_filter(e, o->filter);
              if (o->c.format == "json" || o->c.format == "jsonl") e.format = "none";  // stdout holds the targets alone
              o->iso.apply(sub, e);
              fs::path dir;
              rc = run_experiment(e, &dir);
              dirs.push_back(dir.string());
            }
            const bool facts = std::any_of(checks.begin(), checks.end(),
                                           [](const query::Check& c) { return !c.per_device.empty(); });
            const auto records = tagged_records(dirs, facts);
            int missed = 0, figures = 0;
            nlohmann::json targets = nlohmann::json::array();  // --format json: one document
            for (const auto& c : checks) {
              const auto res = query::evaluate(c, records);
              if (o->c.format == "json") targets.push_back(res.to_json(c));
              else print_result(c, res, o->c.format);
              missed += !res.verdict.met;
              figures += c.target.report;
            }
            // Reported figures are neither met nor missed: the counts are of the bounded targets.
            const std::size_t bounded = checks.size() - static_cast<std::size_t>(figures);
            const std::size_t met = bounded - static_cast<std::size_t>(missed);
            if (o->c.format == "json")
              fmt::print("{}\n", nlohmann::json{{"experiments", dirs},
                                                {"met", met},
                                                {"figures", figures},
                                                {"targets", targets}}
                                    .dump(2));
            else if (o->c.format != "jsonl")
              fmt::print("\ncheck: {} of {} targets met{}{}\n", met, bounded,
                         figures ? fmt::format(", {} figure{} reported", figures, figures == 1 ? "" : "s") : "",
                         rc ? fmt::format(" (the run exited {})", rc) : "");
            return missed || rc ? 1 : 0;
          }};
}

}  // namespace hetbench::cli
