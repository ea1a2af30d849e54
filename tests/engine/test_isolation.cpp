// Points isolated in worker processes (docs/isolation.md): a sweep over the planted faults
// of tests/kernels/faults (a hang, a far out-of-bounds read, a trap, a kernel that does
// not build) and good kernels finishes, with the right status on every point; workers
// die with a parent killed by SIGKILL; a device that fails its check after a fault takes
// no more points. On PoCL here; the CUDA version runs where there is a GPU.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;

namespace {

const std::string kFaults = "--kernels " + source_dir() + "/tests/kernels/faults ";

// A sweep of the planted faults on `device`, then good kernels on it and on the host.
std::string fault_spec(const std::string& device, const std::vector<std::string>& faults, bool good_copy = true) {
  const nlohmann::json sizes = {"1000", "4096"};
  nlohmann::json runs = {{{"op", "copy"}, {"variants", faults}, {"devices", device}, {"sizes", sizes}}};
  if (good_copy) runs.push_back({{"op", "copy"}, {"variants", {"simple"}}, {"devices", device}, {"sizes", sizes}});
  runs.push_back({{"op", "axpy"}, {"variants", {"loop"}}, {"devices", "host"}, {"sizes", sizes}});
  return nlohmann::json{{"name", "faults"}, {"precisions", {"S"}}, {"reps", 3}, {"warmup", 1}, {"runs", runs}}.dump(1);
}

std::vector<nlohmann::json> sweep(const TempDir& tmp, const std::string& spec, const std::string& opts, int& status,
                                  const std::string& env = "") {
  write_text(tmp.path() / "spec.json", spec);
  // In the sanitized build (scripts/build-asan) ASan's own handlers would turn the planted
  // SIGSEGV and SIGILL into "exit 1"; a user's build dies by the signal, which is what the
  // statuses below check. The variable means nothing to a build without ASan.
  const std::string asan = "ASAN_OPTIONS=handle_segv=0:handle_sigill=0:handle_abort=0 ";
  auto r = run_hetbench(kFaults + "sweep " + (tmp.path() / "spec.json").string() + " --out " + tmp.str() + "/res --seed " +
                            std::to_string(fresh_seed()) + " " + opts,
                        asan + env);
  status = r.status;
  EXPECT_THAT(r.output, testing::Not(HasSubstr("internal error"))) << r.output;
  return hetbench::read_results(only_experiment(tmp.path() / "res"));
}

// Every planted point has its status and every good one is measured and correct.
void expect_faults_recorded(const std::vector<nlohmann::json>& recs,
                            const std::map<std::string, std::pair<std::string, std::string>>& expected) {
  int good = 0;
  for (const auto& r : recs) {
    const std::string v = r.value("variant", "");
    if (auto it = expected.find(v); it != expected.end()) {
      EXPECT_EQ(r["status"], it->second.first) << describe(r);
      EXPECT_THAT(r.value("message", ""), HasSubstr(it->second.second)) << describe(r);
      continue;
    }
    ++good;
    EXPECT_EQ(r["status"], "ok") << describe(r);
    EXPECT_TRUE(r.contains("validation") && r["validation"].value("passed", false)) << describe(r);
    EXPECT_EQ(r["timing"]["reps"], 3) << describe(r);
  }
  EXPECT_EQ(good, 4);  // copy simple and axpy loop, two sizes each
}

// The processes whose parent is `parent`: its workers.
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream stat(e.path() / "stat");
    std::string pid, comm, state;
    long ppid = 0;
    if (stat >> pid >> comm >> state >> ppid && ppid == parent) out.push_back(std::stoi(pid));
  }
  return out;
}

bool gone_soon(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    if (kill(pid, 0) != 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

TEST(Isolation, PlantedFaultsOnPocl) {
  TempDir tmp;
  int status = 0;
  const auto recs =
      sweep(tmp, fault_spec("opencl:0:0", {"hang", "oob", "trap", "broken"}), "--point-timeout 2", status);
  EXPECT_EQ(status, 1);
  ASSERT_EQ(recs.size(), 12u);
  expect_faults_recorded(recs, {{"hang", {"timeout", "ran past the 2 s limit while running"}},
                                {"oob", {"crashed", "SIGSEGV"}},
                                {"trap", {"crashed", "SIGILL"}},
                                {"broken", {"error", "not_declared_anywhere"}}});
  for (const auto& r : recs)
    if (r["variant"] == "broken") EXPECT_EQ(r["error_stage"], "build") << describe(r);
}

TEST(Isolation, NoIsolateRunsInProcess) {
  // Without isolation the sweep measures in its own process: the same good points, and
  // a build failure is still an error record.
  TempDir tmp;
  int status = 0;
  const auto recs = sweep(tmp, fault_spec("opencl:0:0", {"broken"}), "--no-isolate", status);
  EXPECT_EQ(status, 1);
  ASSERT_EQ(recs.size(), 6u);
  expect_faults_recorded(recs, {{"broken", {"error", "not_declared_anywhere"}}});
}

TEST(Isolation, DeviceFailingItsCheckTakesNoMorePoints) {
  // An empty kernel folder instead of kernels/: after the first fault the check finds no
  // known-good kernel to run, so the device's later points are errors saying why, and
  // the host's points are still measured.
  TempDir tmp, no_kernels;
  int status = 0;
  const auto recs = sweep(tmp, fault_spec("opencl:0:0", {"trap"}, false), "--point-timeout 5", status,
                          "HETBENCH_KERNEL_DIR=" + no_kernels.str());
  EXPECT_EQ(status, 1);
  ASSERT_EQ(recs.size(), 4u);  // trap at two sizes, axpy loop at two (no copy simple here)
  EXPECT_EQ(recs[0]["status"], "crashed") << describe(recs[0]);
  EXPECT_EQ(recs[1]["status"], "error") << describe(recs[1]);
  EXPECT_THAT(recs[1].value("message", ""), HasSubstr("failed its check after a fault")) << describe(recs[1]);
  for (std::size_t i = 2; i < recs.size(); ++i) EXPECT_EQ(recs[i]["status"], "ok") << describe(recs[i]);
}

TEST(Isolation, WorkersDieWithTheParent) {
  TempDir tmp;
  write_text(tmp.path() / "spec.json", fault_spec("opencl:0:0", {"hang"}));
  const pid_t parent = spawn_hetbench(kFaults + "sweep " + (tmp.path() / "spec.json").string() + " --out " + tmp.str() +
                                      " --point-timeout 600");
  // The worker: the child of the parent (sh exec'd hetbench, so `parent` is hetbench).
  std::vector<pid_t> workers;
  for (int i = 0; i < 600 && workers.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    workers = children_of(parent);
  }
  ASSERT_EQ(workers.size(), 1u) << "no worker process appeared";
  std::this_thread::sleep_for(std::chrono::seconds(1));  // into the hanging kernel, likely
  kill(parent, SIGKILL);
  waitpid(parent, nullptr, 0);
  const bool gone = gone_soon(workers[0]);
  EXPECT_TRUE(gone) << "worker " << workers[0] << " outlived its parent";
  if (!gone) kill(workers[0], SIGKILL);
}

TEST(Isolation, CtrlCStopsCleanly) {
  // As in one process: the sweep ends with status 130, keeps its finished points, and
  // its worker is gone.
  TempDir out;
  const pid_t parent = spawn_hetbench("run dot --device host --variant loop --size 1000:200000:1000 --reps 5 --isolate "
                                      "--out " + out.str());
  std::filesystem::path dir;
  for (int i = 0; i < 1200 && dir.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!std::filesystem::exists(out.path())) continue;
    for (const auto& e : std::filesystem::directory_iterator(out.path())) {
      std::ifstream f(e.path() / "results.jsonl");
      if (std::count(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>(), '\n') >= 3) dir = e.path();
    }
  }
  ASSERT_FALSE(dir.empty()) << "no points recorded";
  const auto workers = children_of(parent);
  ASSERT_EQ(workers.size(), 1u);
  kill(parent, SIGINT);
  int st = 0;
  waitpid(parent, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 130);
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(dir / "experiment.json"))["status"], "interrupted");
  const auto recs = hetbench::read_results(dir);
  EXPECT_GE(recs.size(), 3u);
  EXPECT_LT(recs.size(), 200u);
  // The point the signal met stops after its repetition; one it met before its first
  // timed repetition has no time to report and is interrupted, never "ok" at 0 s.
  for (std::size_t i = 0; i < recs.size(); ++i) {
    const auto& r = recs[i];
    if (i + 1 == recs.size() && r["status"] == "interrupted") {
      EXPECT_EQ(r.value("message", ""), "interrupted before its first timed repetition");
      continue;
    }
    EXPECT_EQ(r["status"], "ok") << describe(r);
    EXPECT_GT(r["timing"]["seconds"]["median"].get<double>(), 0) << describe(r);
  }
  EXPECT_TRUE(gone_soon(workers[0]));
}

TEST(Isolation, PlantedFaultsOnCuda) {
  const auto devices = run_hetbench("devices");
  if (devices.output.find("cuda:0") == std::string::npos) GTEST_SKIP() << "no CUDA device: `hetbench devices` lists none";
  TempDir tmp;
  int status = 0;
  const auto recs =
      sweep(tmp, fault_spec("cuda:0", {"hang", "oob", "trap", "assert", "broken"}), "--point-timeout 5", status);
  EXPECT_EQ(status, 1);
  ASSERT_EQ(recs.size(), 14u);
  expect_faults_recorded(recs, {{"hang", {"timeout", "ran past the 5 s limit while running"}},
                                {"oob", {"crashed", "cudaErrorIllegalAddress"}},
                                {"trap", {"crashed", "cudaError"}},
                                {"assert", {"crashed", "cudaErrorAssert"}},
                                {"broken", {"error", "not_declared_anywhere"}}});
}

TEST(Isolation, BadPointTimeoutIsBadInput) {
  for (const char* t : {"0", "-3", "nan"}) {
    TempDir out;
    const auto r = run_hetbench(std::string("run dot --device host --size 10 --isolate --point-timeout ") + t +
                                " --out " + out.str());
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("--point-timeout")) << r.output;
    EXPECT_THAT(r.output, HasSubstr("is impossible")) << r.output;
  }
}

namespace {

// The experiment folder under `out` once its results.jsonl holds `lines` lines ("" after 60 s).
std::filesystem::path experiment_with_lines(const std::filesystem::path& out, long lines) {
  for (int i = 0; i < 1200; ++i) {
    if (std::filesystem::exists(out))
      for (const auto& e : std::filesystem::directory_iterator(out)) {
        std::ifstream f(e.path() / "results.jsonl");
        if (std::count(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>(), '\n') >= lines)
          return e.path();
      }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return {};
}

// Seconds until `pid` (a child) exits, at most `limit` (then it is killed); its wait status in `st`.
double seconds_to_exit(pid_t pid, double limit, int& st) {
  const auto t0 = std::chrono::steady_clock::now();
  auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  while (since() < limit) {
    if (waitpid(pid, &st, WNOHANG) == pid) return since();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  return since();
}

}  // namespace

TEST(Isolation, SigtermEndsAHungKernelInProcess) {
  // No isolation: the planted hang holds the process inside the driver, where no
  // repetition loop sees the signal. The process still ends within the grace period (5 s),
  // with the finished point kept, the hung one recorded as interrupted and the experiment
  // marked interrupted; a resume with a time limit then measures the hung point again.
  for (int sig : {SIGTERM, SIGHUP}) {
    TempDir out;
    const std::string seed = std::to_string(fresh_seed());
    const pid_t pid = spawn_hetbench(kFaults + "run copy --device opencl:0:0 --variant simple,hang --size 4097 "
                                               "--precision S --reps 2 --seed " + seed + " --out " + out.str());
    const auto dir = experiment_with_lines(out.path(), 1);
    ASSERT_FALSE(dir.empty()) << "the first point was not recorded";
    std::this_thread::sleep_for(std::chrono::seconds(2));  // into the hanging kernel
    kill(pid, sig);
    int st = 0;
    const double took = seconds_to_exit(pid, 30, st);
    EXPECT_LT(took, 5 + 2.5) << "signal " << sig;  // the grace period and the time to write
    ASSERT_TRUE(WIFEXITED(st)) << "ended by signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    EXPECT_EQ(WEXITSTATUS(st), 130);
    EXPECT_EQ(read_json(dir / "experiment.json")["status"], "interrupted");
    const auto recs = hetbench::read_results(dir);
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0]["variant"], "simple");
    EXPECT_EQ(recs[0]["status"], "ok") << describe(recs[0]);
    EXPECT_EQ(recs[1]["variant"], "hang");
    EXPECT_EQ(recs[1]["status"], "interrupted") << describe(recs[1]);
    EXPECT_THAT(recs[1].value("message", ""), HasSubstr("still running 5 s after the signal"));
    if (sig != SIGTERM) continue;
    const auto r = run_hetbench(kFaults + "sweep --resume " + dir.string() + " --point-timeout 2");
    EXPECT_EQ(r.status, 1) << r.output;  // the hang times out
    EXPECT_THAT(r.output, HasSubstr("1 of 2 points finished")) << r.output;
    const auto after = hetbench::read_results(dir);
    ASSERT_EQ(after.size(), 2u);
    EXPECT_EQ(after[1]["status"], "timeout") << describe(after[1]);
    EXPECT_EQ(read_json(dir / "experiment.json")["status"], "complete");
  }
}

TEST(Isolation, SigtermUnderIsolationRecordsTheHungPointInterrupted) {
  // Isolated, the parent forwards the signal, kills the worker still in its kernel and
  // records the point itself, within the same grace period.
  TempDir out;
  const pid_t pid = spawn_hetbench(kFaults + "run copy --device opencl:0:0 --variant simple,hang --size 4097 "
                                             "--precision S --reps 2 --isolate --out " + out.str());
  const auto dir = experiment_with_lines(out.path(), 1);
  ASSERT_FALSE(dir.empty()) << "the first point was not recorded";
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const auto workers = children_of(pid);
  kill(pid, SIGTERM);
  int st = 0;
  EXPECT_LT(seconds_to_exit(pid, 30, st), 5 + 2.5);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 130);
  EXPECT_EQ(read_json(dir / "experiment.json")["status"], "interrupted");
  const auto recs = hetbench::read_results(dir);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[1]["status"], "interrupted") << describe(recs[1]);
  for (pid_t w : workers) EXPECT_TRUE(gone_soon(w)) << "worker " << w;
}

TEST(Isolation, OptionsNeedingWorkersImplyIsolation) {
  // `run` measures in process unless asked; a time limit asks: the hang times out and the
  // next point is measured. With --no-isolate given by name the two options are refused.
  // --executions (processes of their own) follows the same rule.
  TempDir out;
  auto r = run_hetbench(kFaults + "run copy --device opencl:0:0 --variant hang,simple --size 4097 --precision S "
                                  "--reps 2 --point-timeout 2 --out " + out.str());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--point-timeout implies --isolate")) << r.output;
  const auto recs = hetbench::read_results(only_experiment(out.path()));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0]["status"], "timeout") << describe(recs[0]);
  EXPECT_EQ(recs[1]["status"], "ok") << describe(recs[1]);

  TempDir out2;
  r = run_hetbench(kFaults + "run copy --device opencl:0:0 --variant simple --size 4097 --no-isolate "
                             "--point-timeout 2 --out " + out2.str());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--point-timeout 2 needs isolation")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out2.path() / "results.jsonl"));
  EXPECT_TRUE(!std::filesystem::exists(out2.path()) || std::filesystem::is_empty(out2.path()));

  r = run_hetbench("run copy --device host --variant loop --size 1001 --reps 2 --executions 2 --no-isolate --out " +
                   out2.str());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--executions 2 needs isolation")) << r.output;
  TempDir out3;
  r = run_hetbench("run copy --device host --variant loop --size 1001 --precision S --reps 2 --executions 2 --format json --out " +
                   out3.str());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--executions implies --isolate")) << r.output;
  const auto pooled = hetbench::read_results(only_experiment(out3.path()));
  ASSERT_EQ(pooled.size(), 1u);
  EXPECT_EQ(pooled[0]["timing"]["executions"], 2) << describe(pooled[0]);
}
