// hetbench tune OP ...: the selectors of run, a strategy and a budget; --resume continues
// an interrupted tuning in its folder (docs/tuning.md).
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "engine/record/kernel_files.hpp"
#include "hetbench/error.hpp"
#include "kernel/foreign/foreign.hpp"
#include "ops/layout_arch.hpp"
#include "ops/layout_op.hpp"
#include "ops/layout_ref.hpp"
#include "util/json_file.hpp"
#include "tune/db_hook.hpp"
#include "tune/search.hpp"
#include "tune/tuner.hpp"
#include "util/random.hpp"

namespace hetbench::cli {

namespace {

struct TuneOpts {
  RunSelectors sel;
  std::string strategy = "random", budget, out = "hetbench-results", resume, db, kernel, write_layout;
  std::uint64_t seed = 0;
  std::size_t starts = 3;
  std::vector<std::string> about;
  Isolation iso;
};

// A resumed tuning must ask for what the recorded one asked: anything else would mix two
// searches in one folder. Compared are the keys given (and with `all`, every key of both).
void check_same(const std::string& dir, const char* what, const nlohmann::json& recorded, const nlohmann::json& given,
                bool all) {
  std::set<std::string> keys;
  for (const auto& [k, v] : given.items()) keys.insert(k);
  if (all)
    for (const auto& [k, v] : recorded.items()) keys.insert(k);
  std::string diff;
  for (const auto& k : keys) {
    const auto r = recorded.value(k, nlohmann::json()), g = given.value(k, nlohmann::json());
    if (r != g) diff += fmt::format("{}{} was {} and is now {}", diff.empty() ? "" : "; ", k, r.dump(), g.dump());
  }
  if (!diff.empty()) throw Error(fmt::format("--resume '{}': the {} differ from the recorded tuning: {}", dir, what, diff));
}

// The selector options and the keys of a recorded run they set.
const std::vector<std::pair<const char*, const char*>> kSelectorKeys{
    {"--variant", "variants"}, {"--device", "devices"}, {"--precision", "precisions"},
    {"--size", "sizes"},       {"--matrix", "matrices"}, {"--param", "params"},
    {"--reps", "reps"},        {"--warmup", "warmup"},  {"--include-transfers", "include_transfers"}};

// --write-layout FILE: each best's layout written into FILE as the section of its device
// (ops/layout_arch.hpp), so that `run --size N@FILE` gives every tuned device its winner.
tune::ResultHook layout_writer(tune::ResultHook next, const std::string& path) {
  if (path.empty()) return next;
  return [next, path](const tune::TuningResult& r) {
    if (next) next(r);
    if (!r.found || !r.layout || !r.device_ref) return;
    const auto [token, arch] = split_layout_token(layout_token(r.op, *r.layout));
    const LayoutFile from = read_layout_file(layout_path(r.op, token));
    std::size_t a = 0;
    while (a + 1 < from.archs.size() && from.archs[a].arch != arch) ++a;
    const auto name = write_device_section(path, from.archs[a], r.device_ref->info());
    fmt::print(stderr, "hetbench: wrote {}'s best layout for {} {} ({}) into {} as 'Arch {}'\n", r.device, r.variant,
               r.precision, describe(*r.layout), path, name);
  };
}

}  // namespace

Command add_tune(CLI::App& app, const std::string& command_line) {
  auto* sub = app.add_subcommand("tune", "tune each variant's parameters per problem with a search strategy");
  auto o = std::make_shared<TuneOpts>();
  sub->add_option("op", o->sel.r.op, "copy, axpy, dot, spmv, gemm (optional with --resume)");
  add_run_selectors(sub, o->sel);
  sub->add_option("--strategy", o->strategy, "exhaustive, random, annealing, genetic or bayes")->capture_default_str();
  sub->add_option("--budget", o->budget,
                  "per problem and variant: evaluations (40), a fraction of the space (15%), or in all a time (90s, 10m, "
                  "1h); default 100% for exhaustive, 15% otherwise");
  sub->add_option("--seed", o->seed, "seed of the strategy and the inputs (default: a fresh one, recorded)");
  sub->add_option("--out", o->out, "results root folder (an experiment folder is created inside)")->capture_default_str();
  sub->add_option("--resume", o->resume, "continue the interrupted tuning in this experiment folder");
  sub->add_option("--db", o->db, "tuning database the best parameters go to (default: $HETBENCH_DB or "
                                 "~/.local/share/hetbench/tuning.db; none: do not store them)");
  sub->add_option("--starts", o->starts,
                  "measure first (after the defaults) the parameters of this many tuning database entries of the "
                  "variant, nearest problems first (other sizes, layouts, devices of the architecture); 0: none")
      ->capture_default_str();
  sub->add_option("--kernel", o->kernel,
                  "gemm: tune a GEMMbench entry (.json, hand-written or Lift-generated) or a folder of entries over its "
                  "local size");
  add_kernel_about(sub, o->about);
  sub->add_option("--write-layout", o->write_layout,
                  "ops with layouts: write each device's winning layout into this layout file as that device's Arch "
                  "section (created, or the section replaced)");
  add_isolation(sub, o->iso, true);
  return {sub, [o, sub, command_line] {
            tune::check_strategy(o->strategy);
            if (!o->write_layout.empty()) {
              const std::string op = o->sel.r.op;
              if (const Op* known = op_named(op); !op.empty() && known && !op_has_layouts(*known))
                throw Error(fmt::format("--write-layout '{}': op {} places no records by a layout", o->write_layout, op));
              if (std::filesystem::exists(o->write_layout)) read_layout_file(o->write_layout);  // bad input stops here
            }
            // The database a tuning writes to is recorded with it (spec key "db": its absolute
            // path, or "none"), so that --resume without --db goes on writing where it began.
            std::string db_path = tuning::resolve_db_path(o->db);
            if (!db_path.empty()) db_path = std::filesystem::absolute(db_path).lexically_normal().string();
            // The resumed tuning's experiment.json, read once for its database, its
            // settings and its kernel entry.
            nlohmann::json recorded;
            if (!o->resume.empty()) {
              recorded = tune::recorded_experiment(o->resume);
              nlohmann::json spec = nlohmann::json::object();
              if (recorded.is_object() && recorded.contains("spec") && recorded["spec"].is_object())
                spec = recorded["spec"];
              if (spec.contains("db") && spec["db"].is_string()) {
                const std::string recorded = spec["db"] == "none" ? "" : spec["db"].get<std::string>();
                if (sub->count("--db") && recorded != db_path)
                  throw Error(fmt::format("--resume '{}': the tuning wrote to the database '{}', not '{}'", o->resume,
                                          recorded.empty() ? "none" : recorded, db_path.empty() ? "none" : db_path));
                db_path = recorded;
              }
            }
            // Opened before anything is measured: a foreign or corrupt file stops here.
            std::unique_ptr<tuning::TuningDb> db;
            if (!db_path.empty()) db = std::make_unique<tuning::TuningDb>(db_path);
            const auto hook = [&](std::uint64_t seed) {
              return layout_writer(db ? tune::database_hook(*db, seed) : tune::ResultHook{}, o->write_layout);
            };
            const auto starts = db ? tune::database_starts(*db, o->starts) : tune::StartsHook{};
            tune::TuneSettings s;
            s.strategy = o->strategy;
            s.budget = tune::parse_budget(o->budget.empty() ? (o->strategy == "exhaustive" ? "100%" : "15%") : o->budget);
            s.seed = sub->count("--seed") ? o->seed : fresh_seed();
            if (!o->resume.empty()) {
              auto [e, rec] =
                  tune::recorded_tuning(recorded, o->resume, (std::filesystem::path(o->resume) / "experiment.json").string());
              // Tuned kernels from outside the build: the experiment's own copies.
              const auto entry = recorded_kernel_entry(recorded, o->resume);
              if (!entry.empty()) {
                load_foreign_kernels(e.runs.empty() ? "gemm" : e.runs[0].op, entry);
                e.spec["gemmbench"] = entry;
              }
              if (e.runs.size() != 1)
                throw Error(fmt::format("--resume '{}': the recorded tuning has {} runs", o->resume, e.runs.size()));
              // With the op, the whole command line is compared; without, the selectors given.
              RunSelectors sel = o->sel;
              if (sel.r.op.empty()) sel.r.op = e.runs[0].op;
              const nlohmann::json now = to_json(sel.run_spec());
              nlohmann::json asked = nlohmann::json::object();
              for (const auto& [opt, key] : kSelectorKeys)
                if (sub->count(opt) && now.contains(key)) asked[key] = now[key];
              check_same(o->resume, "selectors", to_json(e.runs[0]), o->sel.r.op.empty() ? asked : now,
                         !o->sel.r.op.empty());
              nlohmann::json given = nlohmann::json::object();
              if (sub->count("--strategy")) given["strategy"] = s.strategy;
              if (!o->budget.empty()) given["budget"] = s.budget.text;
              if (sub->count("--seed")) given["seed"] = s.seed;
              nlohmann::json recorded = tune::to_json(rec);
              for (auto& [k, v] : recorded.items())
                if (!given.contains(k)) given[k] = v;
              check_same(o->resume, "tuning settings", recorded, given, true);
              o->iso.apply(sub, e);
              return tune::tune_experiment(e, rec, o->resume, hook(e.seed), starts);
            }
            if (o->sel.r.op.empty()) throw Error("tune: give the op to tune (or --resume EXPERIMENT)");
            Experiment e;
            const RunSpec r0 = o->sel.run_spec();
            e.runs = o->kernel.empty() ? std::vector<RunSpec>{r0} : kernel_runs(r0, o->kernel, "");
            if (!o->kernel.empty()) e.spec["gemmbench"] = o->kernel;
            set_kernel_about(e, o->about, o->kernel);
            e.name = "tune-" + e.runs[0].op;
            e.out_root = o->out;
            e.command_line = command_line;
            e.seed = s.seed;
            e.spec["seed"] = s.seed;
            e.spec["db"] = db_path.empty() ? "none" : db_path;
            o->iso.apply(sub, e);
            return tune::tune_experiment(e, s, std::nullopt, hook(e.seed), starts);
          }};
}

}  // namespace hetbench::cli
