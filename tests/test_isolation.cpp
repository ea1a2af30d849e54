// Points isolated in worker processes (docs/isolation.md): a sweep over the planted faults
// of tests/kernels/faults (a hang, a far out-of-bounds read, a trap, a kernel that does
// not build) and good kernels finishes, with the right status on every point; workers
// die with a parent killed by SIGKILL; a device that fails its check after a fault takes
// no more points. On PoCL here; the CUDA version runs where there is a GPU.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;

namespace {

const std::string kFaults = "--kernels " + source_dir() + "/tests/kernels/faults ";

// A sweep of the planted faults on `device`, then good kernels on it and on the host.
std::string fault_spec(const std::string& device, const std::vector<std::string>& faults) {
  nlohmann::json bad = {{"op", "copy"}, {"variants", faults}, {"devices", device}};
  nlohmann::json good = {{"op", "copy"}, {"variants", {"simple"}}, {"devices", device}};
  nlohmann::json host = {{"op", "axpy"}, {"variants", {"loop"}}, {"devices", "host"}};
  return nlohmann::json{{"name", "faults"}, {"precisions", {"S"}}, {"sizes", {"1000", "4096"}}, {"reps", 3},
                        {"warmup", 1},      {"runs", {bad, good, host}}}
      .dump(1);
}

std::vector<nlohmann::json> sweep(const TempDir& tmp, const std::string& spec, const std::string& opts, int& status,
                                  const std::string& env = "") {
  write_text(tmp.path() / "spec.json", spec);
  auto r = run_hetbench(kFaults + "sweep " + (tmp.path() / "spec.json").string() + " --out " + tmp.str() + "/res --seed " +
                            std::to_string(fresh_seed()) + " " + opts,
                        env);
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
  // A kernel folder without the copy op's simple kernel: after the first fault the check
  // cannot run its known-good kernel, so the device's later points are errors saying
  // why, and the host's points are still measured.
  TempDir tmp, kernels;
  std::filesystem::copy(source_dir() + "/tests/kernels/faults", kernels.path());
  int status = 0;
  const auto recs = sweep(tmp, fault_spec("opencl:0:0", {"trap"}), "--point-timeout 5", status,
                          "HETBENCH_KERNEL_DIR=" + kernels.str());
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
  pid_t worker = 0;
  for (int i = 0; i < 600 && !worker; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      std::ifstream stat(e.path() / "stat");
      std::string pid, comm, state;
      long ppid = 0;
      if (stat >> pid >> comm >> state >> ppid && ppid == parent) worker = std::stoi(pid);
    }
  }
  ASSERT_GT(worker, 0) << "no worker process appeared";
  std::this_thread::sleep_for(std::chrono::seconds(1));  // into the hanging kernel, likely
  kill(parent, SIGKILL);
  waitpid(parent, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gone = kill(worker, 0) != 0;
  }
  EXPECT_TRUE(gone) << "worker " << worker << " outlived its parent";
  if (!gone) kill(worker, SIGKILL);
}

TEST(Isolation, PlantedFaultsOnCuda) {
  TempDir probe;
  const auto devices = run_hetbench("devices --format json");
  if (devices.output.find("\"cuda:0\"") == std::string::npos) GTEST_SKIP() << "no CUDA device: `hetbench devices` lists none";
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
