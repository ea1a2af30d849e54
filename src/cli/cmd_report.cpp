// hetbench report EXPERIMENT... -o DIR: a static HTML report with plots. The plots are
// matplotlib's, drawn by the script the project ships (python/hetbench/report.py); this
// command checks the folders (the same reader as every other command, so a damaged
// results.jsonl gives the same error here) and runs the script with Debian's Python.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "engine/record/results.hpp"
#include "engine/record/vendor_summary.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "util/json_file.hpp"

extern char** environ;

namespace hetbench::cli {

namespace fs = std::filesystem;

namespace {

// The folder's records, checked as every other command reads them (so a damaged
// results.jsonl gives the same error here), each tagged with its machine's host name as
// the Python reader tags its rows, so that a device id is per machine.
std::vector<nlohmann::json> checked_records(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw Error(fmt::format("'{}' is not a folder", dir.string()));
  if (!fs::exists(dir / "experiment.json"))
    throw Error(fmt::format("'{}' is not an experiment folder: it has no experiment.json", dir.string()));
  const auto ctx = read_json_file((dir / "experiment.json").string());
  if (!ctx.is_object() || !ctx.contains("hetbench_version"))
    throw Error(fmt::format("'{}' is not a hetbench experiment.json (no 'hetbench_version')",
                            (dir / "experiment.json").string()));
  auto records = read_results(dir);
  check_point_numbers(records, ctx, (dir / "results.jsonl").string());
  const auto& host = ctx.value("host", nlohmann::json());
  const std::string hostname = host.is_object()   ? host.value("hostname", "")
                               : host.is_string() ? host.get<std::string>()
                                                  : "";
  for (auto& r : records) r["host"] = hostname;
  return records;
}

// HETBENCH_PYTHON, else Debian's /usr/bin/python3 (where python3-matplotlib and
// python3-pandas install; a python3 earlier on PATH, e.g. a pyenv shim, lacks them), else
// python3 on PATH.
std::string find_python() {
  if (const char* p = std::getenv("HETBENCH_PYTHON"); p && *p) {
    if (::access(p, X_OK) != 0)
      throw Error(fmt::format("HETBENCH_PYTHON='{}' is not an executable file", p));
    return p;
  }
  if (::access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');) {
      const auto cand = fs::path(dir.empty() ? "." : dir) / "python3";
      if (::access(cand.c_str(), X_OK) == 0) return cand.string();
    }
  }
  throw Error("the report needs Python 3 with matplotlib and pandas: install python3 python3-matplotlib "
              "python3-pandas (Debian), or set HETBENCH_PYTHON");
}

// A file the script reads beside the page: OUT/NAME, whole or an error naming it.
std::string write_for_script(const std::string& out, const char* name, const nlohmann::json& j) {
  fs::create_directories(out);
  const auto path = (fs::path(out) / name).string();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!(f << j.dump(1) << '\n') || !f.flush()) throw Error(fmt::format("report: cannot write '{}'", path));
  return path;
}

// Each op's headline rate as the library rates it (Op::rates: GFLOP/s for an op rated by its
// arithmetic, else GB/s), so that the script's plots use the unit the summary and the
// tables use.
nlohmann::json rate_units() {
  nlohmann::json units = nlohmann::json::object();
  for (const Op* op : all_ops()) units[op->name()] = op->rates().by_flops ? "GFLOP/s" : "GB/s";
  return units;
}

int run_report(const std::vector<std::string>& experiments, const std::string& out) {
  std::vector<nlohmann::json> records;
  for (const auto& e : experiments)
    for (auto& r : checked_records(e)) records.push_back(std::move(r));
  const std::string python = find_python();
  const std::string script = (fs::path(data_dir("python")) / "hetbench" / "report.py").string();
  // The report's first table, from the one results query (engine/record/vendor_summary.hpp),
  // and each op's unit.
  std::vector<std::string> args{python,   script, "-o", out, "--summary",
                                write_for_script(out, "summary.json", own_vs_vendor(records)),
                                "--rates", write_for_script(out, "rates.json", rate_units())};
  args.insert(args.end(), experiments.begin(), experiments.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (int rc = posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ); rc != 0)
    throw Error(fmt::format("cannot run '{}': {}", python, std::strerror(rc)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error(fmt::format("waiting for '{}': {}", python, std::strerror(errno)));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  throw Error(fmt::format("'{} {}' was killed by signal {}", python, script, WTERMSIG(status)));
}

}  // namespace

Command add_report(CLI::App& app) {
  auto* sub = app.add_subcommand("report", "write a static HTML report with plots of experiments (docs/report.md)");
  auto exps = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto stored = std::make_shared<StoredExperiments>();
  sub->add_option("experiments", *exps, "experiment folders, or store:ID of stored ones (from one or several machines)")
      ->required();
  sub->add_option("-o,--out", *out, "the report folder: index.html and plots/*.png, *.svg")->required();
  stored->add_option(sub);
  return {sub, [=] { return run_report(stored->folders(*exps), *out); }};
}

}  // namespace hetbench::cli
