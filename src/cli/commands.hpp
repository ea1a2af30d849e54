// Subcommands of the hetbench program, one file each. Each add_* registers its options
// and returns the action to run once the whole command line is parsed.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "engine/record/resume.hpp"
#include "engine/plan/spec.hpp"

namespace hetbench::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;  // returns the exit status; throws hetbench::Error
};

// How long each point is measured: the options of run, tune and sweep (for sweep they
// override every run of the spec file). Values are checked by the plan.
struct Measure {
  RunSpec given;  // holds the values of the options given
  int reps = 0;
};

// The experiment options of run, sweep and check (--out, --format, --seed, --db, --no-db).
struct Common {
  std::string out = "hetbench-results";
  std::string format = "table";
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string db;
  bool no_db = false;
  std::string json_file, md_file, csv_file;  // the report written beside the experiment folder
};
void add_common(CLI::App* sub, Common& c);
void apply(const Common& c, Experiment& e, bool seed_given);
void add_measure(CLI::App* sub, Measure& m);
// The measurement options given on the command line, into run `r` (they override a spec's).
void apply_measure(const CLI::App* sub, const Measure& m, RunSpec& r);

// `--kernel ENTRY` (and `--lws J,I`) of run and tune: one run per GEMMbench or Lift entry
// (a file, or every entry of a folder), each with the entry's precision and problem axes.
std::vector<RunSpec> kernel_runs(const RunSpec& r0, const std::string& kernel, const std::string& lws);
// A spec's runs with its "gemmbench" entries: kernel_runs of each (every run must be gemm).
std::vector<RunSpec> gemmbench_runs(const std::vector<RunSpec>& runs, const std::string& entries);
// `--kernel-about KEY=VALUE` of run and tune: the entry's author, licence or origin as the
// user states them, into the experiment's spec ("kernel_about"; engine/record/kernel_files).
void add_kernel_about(CLI::App* sub, std::vector<std::string>& about);
void set_kernel_about(Experiment& e, const std::vector<std::string>& about, const std::string& kernel);

// The selectors of `run` (op, variants, devices, precisions, sizes or matrices, parameter
// ranges, measurement), shared by `tune`: add_run_selectors registers them on a
// subcommand, run_spec() checks and converts them once the command line is parsed.
struct RunSelectors {
  RunSpec r;
  std::string variant = "all", precisions = "S,D";
  std::vector<std::string> params;
  Measure m;
  const CLI::App* app = nullptr;  // the subcommand, to tell given measurement options
  RunSpec run_spec() const;
};
void add_run_selectors(CLI::App* sub, RunSelectors& s);

// Experiment arguments of compare and report that name a stored experiment ("store:ID" or
// "store:HASHPREFIX", docs/store.md): written from the store (--store, else $HETBENCH_STORE
// or the default file) into a scratch folder that lives until the command ends, so that
// experiments from several machines merged in one store can be compared and plotted.
class StoredExperiments {
 public:
  void add_option(CLI::App* sub);
  std::vector<std::string> folders(const std::vector<std::string>& args);
  // For a store:REF argument, where it came from: {"store" (the URL without a password),
  // "id", "hash"} (the hash names it on every store); null for a folder.
  nlohmann::json reference(const std::string& arg) const;
  ~StoredExperiments();

 private:
  std::string store_;
  std::string scratch_;
};

// MPI (cli/mpi_launch.cpp, docs/mpi.md). The rank count the launcher (mpirun, srun) gave
// this process, 1 when none; `var` receives the variable that said so.
int launcher_ranks(std::string* var);
// This process's rank under the launcher, 0 when none.
int launcher_rank();
// Throws Error naming `what` when this build has no MPI layer.
void require_mpi(const std::string& what);
// run_experiment, sharded over the ranks when started as one of several (mpirun -np N).
int sweep_experiment(const Experiment& e, const ResumeOptions* resume = nullptr);

Command add_dist(CLI::App& app, const std::string& command_line);  // cli/cmd_dist.cpp

// How the experiment's processes run: --isolate / --no-isolate and --point-timeout
// (docs/isolation.md), and --lock-clocks (docs/measurement.md).
struct Isolation {
  bool on = false;
  double timeout = 0;
  std::string lock_clocks;
  void apply(const CLI::App* sub, Experiment& e) const;
};
void add_isolation(CLI::App* sub, Isolation& iso, bool by_default);

constexpr const char* kFilterHelp =
    "measure only the points whose name VARIANT_ID/PRECISION/SIZE/DEVICE (as --dry-run lists them) matches this "
    "regular expression (a leading '-': those it does not match); recorded, so that --resume keeps it";
// --filter over the spec's own "filter" (a spec may narrow itself; the command line narrows
// it further only by replacing it, as every other option does). cli/cmd_run.cpp.
void set_filter(Experiment& e, const std::string& pattern);

Command add_devices(CLI::App& app);
Command add_list(CLI::App& app);
Command add_run(CLI::App& app, const std::string& command_line);
Command add_sweep(CLI::App& app, const std::string& command_line);
Command add_check(CLI::App& app, const std::string& command_line);
Command add_ceilings(CLI::App& app, const std::string& command_line);
Command add_db(CLI::App& app);
Command add_tune(CLI::App& app, const std::string& command_line);
Command add_export(CLI::App& app);  // export t4 (src/interop)
Command add_kernel(CLI::App& app);  // kernel export-t1 / import-t1 (src/interop)
Command add_compare(CLI::App& app);  // compare A B (src/compare)
Command add_replay(CLI::App& app, const std::string& command_line);  // replay EXPERIMENT (src/compare)
Command add_worker(CLI::App& app);  // the hidden __worker
Command add_report(CLI::App& app);  // report: HTML with plots (python/hetbench/report.py)
Command add_matrix(CLI::App& app);  // matrix SPEC --out FILE: a generated matrix as Matrix Market
Command add_store(CLI::App& app);   // store add/query/list/export/import/get (src/store)
int run_default_suite(const std::string& command_line);

}  // namespace hetbench::cli
