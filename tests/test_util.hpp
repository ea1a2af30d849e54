// Helpers shared by the tests: running the hetbench program, running points through
// the real runner, and temporary folders.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/record/results.hpp"
#include "engine/runner.hpp"
#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "util/json_file.hpp"
#include "util/random.hpp"

namespace hetbench::test {

// A fresh folder under the system temp dir, removed at destruction.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("hetbench-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

using hetbench::fresh_seed;

struct CmdResult {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line and captures its output (stdout and stderr together).
inline CmdResult run_shell(const std::string& cmd) {
  TempDir tmp;
  const auto log = tmp.path() / "out.txt";
  const int raw = std::system((cmd + " > " + log.string() + " 2>&1").c_str());
  CmdResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  std::ifstream f(log);
  std::stringstream ss;
  ss << f.rdbuf();
  r.output = ss.str();
  return r;
}

// Runs the hetbench program with `args` (a shell-quoted string) and captures its output.
inline CmdResult run_hetbench(const std::string& args, const std::string& env = "") {
  return run_shell(env + " " + std::string(HETBENCH_BINARY) + " " + args);
}

// Starts the hetbench program with `args` in the background, output discarded; returns
// its pid (for tests that interrupt or kill it).
inline pid_t spawn_hetbench(const std::string& args) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string cmd = std::string("exec ") + HETBENCH_BINARY + " " + args + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

inline std::string source_dir() { return HETBENCH_SOURCE_DIR; }

// An NVIDIA H200 as the CUDA backend describes it, for fakes that build or run nothing
// (the NVRTC compile check, the GEMM shape model's tests).
inline DeviceInfo h200_info(std::string name) {
  DeviceInfo d;
  d.id = "cuda:0";
  d.backend = BackendKind::Cuda;
  d.name = std::move(name);
  d.type = "gpu";
  d.compute_units = 132;
  d.max_clock_mhz = 1980;
  d.max_wg = 1024;
  d.pref_wg_multiple = 32;
  d.local_mem = 48 * 1024;
  d.local_mem_launch = 227 * 1024;
  d.fp64 = true;
  d.global_mem = d.max_alloc = 1ull << 36;
  return d;
}

inline void write_text(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

// An experiment's JSON file (experiment.json, a tuning record), parsed.
inline nlohmann::json read_json(const std::filesystem::path& p) { return read_json_file(p.string()); }

// Whether this machine has the OpenCL device the tests use (PoCL's opencl:0:0 on CI).
inline bool have_opencl() {
  try {
    return !resolve_devices("opencl:0:0").empty();
  } catch (const Error&) {
    return false;
  }
}

// The first folder below `root` with an experiment.json; empty if none (yet).
inline std::filesystem::path experiment_in(const std::filesystem::path& root) {
  if (!std::filesystem::exists(root)) return {};
  for (const auto& e : std::filesystem::directory_iterator(root))
    if (std::filesystem::exists(e.path() / "experiment.json")) return e.path();
  return {};
}

// The only experiment folder below `root`.
inline std::filesystem::path only_experiment(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> dirs;
  for (const auto& e : std::filesystem::directory_iterator(root))
    if (e.is_directory()) dirs.push_back(e.path());
  EXPECT_EQ(dirs.size(), 1u) << "expected one experiment folder in " << root;
  return dirs.empty() ? root : dirs.front();
}

// Runs one RunSpec through the real runner into a temporary folder and returns the
// records; the seed is fresh each time (every record carries it: see describe).
inline std::vector<nlohmann::json> run_points(const RunSpec& spec, int* status = nullptr) {
  TempDir tmp;
  Experiment e;
  e.name = spec.op;
  e.runs.push_back(spec);
  e.seed = fresh_seed();
  e.out_root = tmp.str();
  e.format = "json";
  std::filesystem::path dir;
  // Released however run_experiment ends: a capture left open by an exception aborts
  // the next test that captures ("Only one stdout capturer can exist at a time").
  struct Capture {
    Capture() { testing::internal::CaptureStdout(); }
    ~Capture() { testing::internal::GetCapturedStdout(); }
  };
  int st = 0;
  {
    Capture capture;
    st = run_experiment(e, &dir);
  }
  if (status) *status = st;
  return read_results(dir);
}

inline std::string describe(const nlohmann::json& r) {
  return r.value("variant_id", "?") + " on " + r.value("device", "?") + " " + r.value("precision", "?") + " " +
         r.value("sizes", nlohmann::json::object()).dump() + " " + r.value("params", nlohmann::json::object()).dump() +
         " seed " + std::to_string(r.value("seed", 0ull)) + ": " + r.value("status", "?") + " " +
         r.value("message", "");
}

}  // namespace hetbench::test
