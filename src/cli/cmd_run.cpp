// hetbench run OP ..., hetbench sweep SPEC.json, and the default suite.
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "kernel/foreign/foreign.hpp"
#include "engine/plan/plan.hpp"
#include "engine/runner.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "util/random.hpp"

namespace hetbench::cli {

void add_common(CLI::App* sub, Common& c) {
  sub->add_option("--out", c.out, "results root folder (an experiment folder is created inside)")->capture_default_str();
  sub->add_option("--format", c.format,
                  "stdout format: table, md, csv, json (one document: context and points) or jsonl (a record a line)")
      ->check(CLI::IsMember({"table", "json", "jsonl", "csv", "md"}))
      ->capture_default_str();
  sub->add_option("--seed", c.seed, "seed of the random inputs (default: a fresh one, recorded)");
  sub->add_option("--db", c.db, "tuning database for parameters not given (default: $HETBENCH_DB or "
                                "~/.local/share/hetbench/tuning.db; none: no database)");
  sub->add_flag("--no-db", c.no_db, "use no tuning database: metadata defaults only");
  sub->add_option("--json", c.json_file, "also write the points as one JSON document with a context block to FILE");
  sub->add_option("--md", c.md_file, "also write the table as Markdown to FILE");
  sub->add_option("--csv", c.csv_file, "also write the points as CSV to FILE");
}

void apply(const Common& c, Experiment& e, bool seed_given) {
  e.out_root = c.out;
  e.format = c.format;
  e.db = c.no_db ? "none" : c.db;
  for (const auto& [format, path] : {std::pair{"json", &c.json_file}, {"md", &c.md_file}, {"csv", &c.csv_file}})
    if (!path->empty()) e.report_files[format] = *path;
  if (seed_given) e.seed = c.seed;
  else if (!e.spec.contains("seed")) e.seed = fresh_seed();
}

void add_measure(CLI::App* sub, Measure& m) {
  auto& r = m.given;
  sub->add_option("--reps", m.reps, "a fixed count of timed repetitions (default: adaptive, until --max-noise)");
  sub->add_option("--max-noise", r.max_noise,
                  "adaptive: stop once the median's 95% interval has a relative half-width under this many percent")
      ->capture_default_str();
  sub->add_option("--min-samples", r.min_samples, "adaptive: at least this many timed repetitions")->capture_default_str();
  sub->add_option("--min-time", r.min_time, "adaptive: at least this many seconds of measured time")
      ->capture_default_str();
  sub->add_option("--timeout", r.timeout, "adaptive: at most this many seconds (wall) of timed repetitions per point")
      ->capture_default_str();
  sub->add_option("--max-samples", r.max_samples, "adaptive: at most this many timed repetitions")->capture_default_str();
  sub->add_option("--rounds", r.rounds,
                  "take the repetitions in this many rounds, each on freshly allocated buffers (1: one placement)")
      ->capture_default_str();
  sub->add_option("--executions", r.executions,
                  "measure each point in this many processes of its own, one after another, and pool them (the "
                  "spread between processes joins the rounds'; docs/measurement.md)")
      ->capture_default_str();
  sub->add_option("--cache", r.cache, "hot, or cold: the last-level cache flushed before each timed repetition")
      ->capture_default_str();
  sub->add_flag("--energy", r.energy, "NVML energy in a window of its own where the timed repetitions are too short");
}

void apply_measure(const CLI::App* sub, const Measure& m, RunSpec& r) {
  const RunSpec& g = m.given;
  if (sub->count("--reps")) r.reps = m.reps;
  if (sub->count("--max-noise")) r.max_noise = g.max_noise;
  if (sub->count("--min-samples")) r.min_samples = g.min_samples;
  if (sub->count("--min-time")) r.min_time = g.min_time;
  if (sub->count("--timeout")) r.timeout = g.timeout;
  if (sub->count("--max-samples")) r.max_samples = g.max_samples;
  if (sub->count("--rounds")) r.rounds = g.rounds;
  if (sub->count("--executions")) r.executions = g.executions;
  if (sub->count("--cache")) r.cache = g.cache;
  if (sub->count("--energy")) r.energy = g.energy;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');) out.push_back(t);
  return out;
}


void add_run_selectors(CLI::App* sub, RunSelectors& s) {
  sub->add_option("--variant", s.variant,
                  "variant names, comma-separated; all; auto (per point from the tuning database or a rule); libraries "
                  "(the vendor baselines)")
      ->capture_default_str();
  sub->add_option("--device", s.r.devices, "host, opencl:P:D, cuda:N, a unique name substring, or all")
      ->capture_default_str();
  sub->add_option("--precision", s.precisions, "list of S, D, DF, DD, I32 (int32: scan and reduce only); default: S and D where the op has them, "
                  "else the op's own");
  sub->add_option("--size", s.r.sizes, "sizes: 1000,2^20,1e6 or a:b:step or a:b:*2 (repeatable)");
  sub->add_option("--matrix", s.r.inputs,
                  "spmv: a Matrix Market file or a generator, gen:NAME:k=v,... (repeatable; `hetbench list generators`)");
  sub->add_option("--param", s.params, "NAME=values, e.g. WG=64,128,256 or WG=8:1024:*2 (repeatable)");
  // A layout is a choice of the problem: kept with the parameters as LAYOUT=..., which
  // run_spec turns into SIZE@LAYOUT tokens.
  sub->add_option_function<std::vector<std::string>>(
      "--layout", [&s](const std::vector<std::string>& v) { for (const auto& l : v) s.params.push_back("LAYOUT=" + l); },
      "nbody, stencil3d: a layout file (docs/layouts.md) or the name of one shipped in layouts/OP/ (repeatable)");
  sub->add_option("--warmup", s.r.warmup, "untimed runs before timing")->capture_default_str();
  sub->add_flag("--include-transfers", s.r.include_transfers, "time host-device transfers too");
  add_measure(sub, s.m);
  s.app = sub;
}

RunSpec RunSelectors::run_spec() const {
  RunSpec out = r;
  std::vector<std::string> layouts;
  out.variants = split_commas(variant);
  // Unnamed, the op's own (S and D where it has them): `run transfer` is not refused for D.
  out.precisions = app && !app->count("--precision") ? default_precisions(out.op) : parse_precisions(precisions);
  for (const auto& p : params) {
    auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size())
      throw Error(fmt::format("malformed --param '{}': expected NAME=values", p));
    if (p.substr(0, eq) == "LAYOUT") {  // not a kernel parameter: a choice of the problem
      for (const auto& l : split_commas(p.substr(eq + 1))) layouts.push_back(l);
      continue;
    }
    out.params[p.substr(0, eq)] = p.substr(eq + 1);
  }
  if (!layouts.empty()) {  // each size with each layout, as SIZE@LAYOUT tokens (docs/layouts.md)
    std::vector<std::string> sized;
    for (const auto& tok : out.sizes)
      for (const auto& l : layouts) sized.push_back(tok + "@" + l);
    if (out.sizes.empty()) throw Error("--layout and --param LAYOUT=... need a --size to lay out");
    out.sizes = sized;
  }
  apply_measure(app, m, out);
  return out;
}

void add_kernel_about(CLI::App* sub, std::vector<std::string>& about) {
  sub->add_option("--kernel-about", about,
                  "with --kernel: the entry's author=..., licence=... or origin=... (repeatable), recorded and stored "
                  "with it (over what the entry states)");
}

void set_kernel_about(Experiment& e, const std::vector<std::string>& about, const std::string& kernel) {
  if (about.empty()) return;
  if (kernel.empty()) throw Error(fmt::format("--kernel-about '{}': it describes a --kernel entry, and none is given", about[0]));
  nlohmann::json stated = nlohmann::json::object();
  for (const auto& a : about) {
    const auto eq = a.find('=');
    const std::string key = a.substr(0, eq);
    if (eq == std::string::npos || eq + 1 == a.size() || !kAboutKeys.count(key))
      throw Error(fmt::format("--kernel-about '{}': expected author=..., licence=... or origin=...", a));
    stated[key] = a.substr(eq + 1);
  }
  e.spec["kernel_about"] = stated;
}

std::vector<RunSpec> kernel_runs(const RunSpec& r0, const std::string& kernel, const std::string& lws) {
  if (!lws.empty() && kernel.empty()) throw Error(fmt::format("--lws '{}': expected J,I together with --kernel", lws));
  std::vector<RunSpec> out;
  // One run per entry: each fixes its own precision and problem axes.
  for (const auto& entry : load_foreign_kernels(r0.op, kernel)) {
    RunSpec r = r0;
    r.variants = {entry.variant->id()};
    if (entry.precisions.empty()) {
      r.precisions = {entry.precision};
    } else {
      // Own metadata: the run's precisions that the kernel has, else its first.
      r.precisions.clear();
      for (Precision p : r0.precisions)
        if (std::find(entry.precisions.begin(), entry.precisions.end(), p) != entry.precisions.end())
          r.precisions.push_back(p);
      if (r.precisions.empty()) r.precisions = {entry.precision};
    }
    r.sizes = entry.sizes(r0.sizes);
    if (!lws.empty())
      for (auto& [k, v] : entry.local_size(lws)) r.params[k] = v;
    out.push_back(r);
  }
  return out;
}

std::vector<RunSpec> gemmbench_runs(const std::vector<RunSpec>& runs, const std::string& entries) {
  std::vector<RunSpec> out;
  for (const auto& r : runs) {
    if (r.op != "gemm")
      throw Error(fmt::format("a spec's \"gemmbench\" entries are GEMMs: its run of op '{}' cannot run them", r.op));
    for (auto& k : kernel_runs(r, entries, "")) out.push_back(std::move(k));
  }
  return out;
}

void set_filter(Experiment& e, const std::string& pattern) {
  check_filter(pattern, "--filter");
  e.spec["filter"] = pattern;
}

namespace {

}  // namespace

Command add_run(CLI::App& app, const std::string& command_line) {
  auto* sub = app.add_subcommand("run", "measure an op over variants x devices x precisions x sizes x parameters");
  struct Opts {
    Common c;
    RunSelectors sel;
    std::string kernel, lws;
    std::vector<std::string> about;
    Isolation iso;
    bool dry_run = false;
    std::string filter;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("op", o->sel.r.op, "copy, axpy, dot, ...")->required();
  add_run_selectors(sub, o->sel);
  sub->add_option("--kernel", o->kernel,
                  "a kernel entry recorded with the experiment (replayable, bundled): hetbench kernel metadata of the "
                  "op (.json beside its source, e.g. from `kernel import-t1`), or for gemm a GEMMbench entry "
                  "(hand-written or Lift-generated), or a folder of entries");
  sub->add_option("--lws", o->lws, "with --kernel: the entry's tunable local size, J,I (GEMMbench's lws)");
  add_kernel_about(sub, o->about);
  add_common(sub, o->c);
  add_isolation(sub, o->iso, false);
  sub->add_flag("--dry-run", o->dry_run,
                "list the planned points (parameters and where they come from) and their count; measure nothing");
  sub->add_option("--filter", o->filter, kFilterHelp);
  return {sub, [o, sub, command_line] {
            Experiment e;
            const RunSpec r0 = o->sel.run_spec();
            e.name = r0.op;
            e.runs = o->kernel.empty() ? std::vector<RunSpec>{r0} : kernel_runs(r0, o->kernel, o->lws);
            e.command_line = command_line;
            if (!o->kernel.empty()) e.spec["gemmbench"] = o->kernel;
            set_kernel_about(e, o->about, o->kernel);
            if (sub->count("--filter")) set_filter(e, o->filter);
            apply(o->c, e, sub->count("--seed") > 0);
            e.spec["seed"] = e.seed;
            o->iso.apply(sub, e);
            return o->dry_run ? print_planned(e) : run_experiment(e);
          }};
}

Command add_sweep(CLI::App& app, const std::string& command_line) {
  auto* sub = app.add_subcommand("sweep", "run the experiment described by a spec file, or resume one");
  auto c = std::make_shared<Common>();
  auto path = std::make_shared<std::string>();
  auto m = std::make_shared<Measure>();
  auto resume = std::make_shared<ResumeOptions>();
  auto resume_dir = std::make_shared<std::string>();
  sub->add_option("spec", *path, "spec file (see bench/ and docs/spec-format.md)");
  sub->add_option("--resume", *resume_dir,
                  "continue the interrupted experiment in this folder (of sweep, run or the default suite), measuring "
                  "no finished point again (docs/resume.md)");
  sub->add_flag("--retry-errors", resume->retry_errors,
                "with --resume: measure again the points that ended in error, crashed or timeout");
  auto iso = std::make_shared<Isolation>();
  add_common(sub, *c);
  add_measure(sub, *m);
  add_isolation(sub, *iso, true);
  auto dry_run = std::make_shared<bool>(false);
  sub->add_flag("--dry-run", *dry_run,
                "list the planned points (parameters and where they come from) and their count; measure nothing");
  auto filter = std::make_shared<std::string>();
  sub->add_option("--filter", *filter, kFilterHelp);
  return {sub, [c, path, m, iso, sub, command_line, resume, resume_dir, dry_run, filter] {
            if (resume_dir->empty()) {
              if (path->empty()) throw Error("sweep: give a spec file (or --resume EXPERIMENT)");
              if (resume->retry_errors) throw Error("sweep: --retry-errors goes with --resume EXPERIMENT");
              Experiment e = experiment_from_file(*path);
              for (auto& r : e.runs) apply_measure(sub, *m, r);
              if (e.spec.contains("gemmbench")) e.runs = gemmbench_runs(e.runs, e.spec["gemmbench"]);
              e.command_line = command_line;
              if (sub->count("--filter")) set_filter(e, *filter);
              apply(*c, e, sub->count("--seed") > 0);
              iso->apply(sub, e);
              return *dry_run ? print_planned(e) : sweep_experiment(e);
            }
            // The recorded experiment decides everything that shapes the points.
            if (!path->empty())
              throw Error(fmt::format("sweep --resume '{}': give no spec file ('{}'): the recorded one is used",
                                      *resume_dir, *path));
            for (const char* opt : {"--seed", "--out", "--db", "--no-db", "--reps", "--max-noise", "--min-samples",
                                    "--min-time", "--timeout", "--max-samples", "--rounds", "--executions", "--cache",
                                    "--energy", "--filter"})
              if (sub->count(opt))
                throw Error(fmt::format("sweep --resume '{}': {} cannot change a recorded experiment", *resume_dir, opt));
            resume->dir = *resume_dir;
            Experiment e = recorded_experiment(resume->dir);
            e.format = c->format;
            iso->apply(sub, e);  // isolation is this session's choice, not the record's
            // A `run --kernel` experiment: its GEMMbench entries become variants again.
            if (e.spec.contains("gemmbench") && !e.runs.empty())
              load_foreign_kernels(e.runs[0].op, e.spec["gemmbench"].get<std::string>());
            return sweep_experiment(e, resume.get());
          }};
}

int run_default_suite(const std::string& command_line) {
  std::string path = data_dir("bench") + "/default-suite.json";
  Experiment e = experiment_from_file(path);
  e.command_line = command_line;
  if (!e.spec.contains("seed")) e.seed = fresh_seed();
  e.isolate = true;
  fmt::print(stderr, "hetbench: running the default suite ({}) on every device present\n", path);
  return run_experiment(e);
}

}  // namespace hetbench::cli
