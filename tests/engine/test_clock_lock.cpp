// --lock-clocks (engine/measure/clock_lock.cpp) through a fake of the NVML calls it makes
// (hetbench/clock_control.hpp): locks and gives back every GPU once, refuses in one line
// with nothing left locked, gives the clocks back when a failure is planted between the
// lock and the restore (an exception, a failed lock of a second GPU, a process killed
// outright, whose record the next start finds), and keeps the record where a GPU does not
// go back. The real NVML path is never exercised on a machine whose settings must stay as
// they are; without NVML the command line's refusal is checked.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <set>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/measure/clock_lock.hpp"
#include "hetbench/error.hpp"
#include "test_util.hpp"

using namespace hetbench;
using namespace hetbench::test;
using testing::HasSubstr;
namespace fs = std::filesystem;

namespace {

// Two GPUs, "0000:01:00.0" (cuda:0 and opencl:1:0) and "0000:02:00.0" (cuda:1), max 1980
// MHz, base 1590; the state of their clocks, and failures to plant.
class FakeClocks final : public ClockControl {
 public:
  std::map<std::string, unsigned> locked;  // GPU -> MHz
  std::vector<std::string> calls;
  std::set<std::string> deny_lock, fail_lock, fail_reset;

  std::string gpu_of(const DeviceInfo& d, std::string* why) override {
    if (d.id == "cuda:0" || d.id == "opencl:1:0") return "0000:01:00.0";
    if (d.id == "cuda:1") return "0000:02:00.0";
    *why = d.id + " is not an NVIDIA GPU";
    return "";
  }
  unsigned max_mhz(const std::string&) override { return 1980; }
  unsigned base_mhz(const std::string&) override { return 1590; }
  std::string lock(const std::string& gpu, unsigned mhz, bool* denied) override {
    calls.push_back(fmt::format("lock {} {}", gpu, mhz));
    *denied = deny_lock.count(gpu) > 0;
    if (*denied) return "Insufficient Permissions";
    if (fail_lock.count(gpu)) return "Unknown Error";
    locked[gpu] = mhz;
    return "";
  }
  std::string reset(const std::string& gpu) override {
    calls.push_back("reset " + gpu);
    if (fail_reset.count(gpu)) return "GPU is lost";
    locked.erase(gpu);
    return "";
  }
};

std::vector<DeviceInfo> devices(std::initializer_list<const char*> ids) {
  std::vector<DeviceInfo> out;
  for (const char* id : ids) {
    DeviceInfo d;
    d.id = id;
    out.push_back(d);
  }
  return out;
}

}  // namespace

TEST(ClockLock, LocksEachGpuOnceAndGivesItBackAtTheEnd) {
  TempDir d;
  const auto record = d.path() / "clock-lock.json";
  FakeClocks c;
  {
    ClockLock lock(c, devices({"host", "cuda:0", "opencl:1:0", "cuda:1"}), "max", record);
    EXPECT_EQ(c.locked, (std::map<std::string, unsigned>{{"0000:01:00.0", 1980}, {"0000:02:00.0", 1980}}));
    ASSERT_TRUE(fs::exists(record));
    const auto r = read_json(record);
    EXPECT_EQ(r["pid"], getpid());
    EXPECT_EQ(r["gpus"].size(), 2u);
    EXPECT_EQ(r["gpus"][0]["devices"], nlohmann::json({"cuda:0", "opencl:1:0"}));
    EXPECT_EQ(lock.recorded()["request"], "max");
  }
  EXPECT_TRUE(c.locked.empty());
  EXPECT_FALSE(fs::exists(record));
  ClockLock base(c, devices({"cuda:1"}), "base", record);
  EXPECT_EQ(c.locked.at("0000:02:00.0"), 1590u);
  EXPECT_EQ(base.release(), "");
  EXPECT_EQ(base.release(), "");  // once
  EXPECT_TRUE(c.locked.empty());
}

TEST(ClockLock, BadRequestsAreRefusedBeforeAnythingIsLocked) {
  TempDir d;
  const auto record = d.path() / "clock-lock.json";
  FakeClocks c;
  auto refused = [&](const std::vector<DeviceInfo>& devs, const std::string& req) {
    try {
      ClockLock lock(c, devs, req, record);
    } catch (const Error& e) {
      EXPECT_TRUE(c.locked.empty());
      EXPECT_FALSE(fs::exists(record));
      return std::string(e.what());
    }
    return std::string("not refused");
  };
  EXPECT_THAT(refused(devices({"cuda:0"}), "fast"), HasSubstr("--lock-clocks 'fast': expected max, base or an SM clock"));
  EXPECT_THAT(refused(devices({"cuda:0"}), "0"), HasSubstr("'0'"));
  EXPECT_THAT(refused(devices({"cuda:0"}), "2500"), HasSubstr("above the highest SM clock of cuda:0, 1980 MHz"));
  EXPECT_THAT(refused(devices({"host", "opencl:0:0"}), "max"),
              HasSubstr("no NVIDIA GPU among the devices to lock: host (host is not an NVIDIA GPU)"));
  EXPECT_TRUE(c.calls.empty());
}

// Not permitted on the second GPU: the first is given back, the record removed, and the
// line says so.
TEST(ClockLock, APermissionRefusalLeavesNothingLocked) {
  TempDir d;
  const auto record = d.path() / "clock-lock.json";
  FakeClocks c;
  c.deny_lock = {"0000:02:00.0"};
  try {
    ClockLock lock(c, devices({"cuda:0", "cuda:1"}), "1500", record);
    FAIL() << "not refused";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not permitted to lock the SM clock of cuda:1 at 1500 MHz"));
    EXPECT_THAT(e.what(), HasSubstr("it takes root"));
    EXPECT_THAT(e.what(), HasSubstr("nothing is left locked"));
  }
  EXPECT_TRUE(c.locked.empty());
  EXPECT_FALSE(fs::exists(record));
}

// A failure planted between the lock and the restore: the experiment throws.
TEST(ClockLock, AFailureInsideTheExperimentStillGivesTheClocksBack) {
  TempDir d;
  const auto record = d.path() / "clock-lock.json";
  FakeClocks c;
  try {
    ClockLock lock(c, devices({"cuda:0"}), "max", record);
    ASSERT_EQ(c.locked.size(), 1u);
    throw Error("a point failed hard");
  } catch (const Error&) {
  }
  EXPECT_TRUE(c.locked.empty());
  EXPECT_FALSE(fs::exists(record));
}

// A process killed with the clocks locked (SIGKILL: no destructor, no handler): its record
// stays, and the next start gives the clocks back and removes it; a second start finds
// nothing to do.
TEST(ClockLock, AKilledProcessesLockIsGivenBackAtTheNextStart) {
  TempDir d;
  const auto record = d.path() / "clock-lock.json";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    FakeClocks mine;
    auto* leaked = new ClockLock(mine, devices({"cuda:0", "cuda:1"}), "1400", record);
    (void)leaked;
    raise(SIGKILL);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_TRUE(fs::exists(record));
  EXPECT_EQ(read_json(record)["pid"], child);
  FakeClocks c;  // the GPUs as the next process sees them: locked at 1400
  c.locked = {{"0000:01:00.0", 1400}, {"0000:02:00.0", 1400}};
  const auto said = restore_left_clock_locks(&c, record);
  ASSERT_EQ(said.size(), 2u);
  EXPECT_THAT(said[0], HasSubstr("restored the SM clocks of GPU 0000:01:00.0 (cuda:0), locked at 1400 MHz"));
  EXPECT_THAT(said[0], HasSubstr(fmt::format("pid {}", child)));
  EXPECT_TRUE(c.locked.empty());
  EXPECT_FALSE(fs::exists(record));
  EXPECT_TRUE(restore_left_clock_locks(&c, record).empty());
}

// A GPU that does not go back: the record keeps it (and only it) for the next start, and
// the next lock first tries again to give it back.
TEST(ClockLock, AGpuThatDoesNotGoBackStaysRecorded) {
  TempDir d;
  const auto record = d.path() / "clock-lock.json";
  FakeClocks c;
  auto lock = std::make_unique<ClockLock>(c, devices({"cuda:0", "cuda:1"}), "max", record);
  c.fail_reset = {"0000:02:00.0"};
  const std::string fail = lock->release();
  EXPECT_THAT(fail, HasSubstr("could not give back the SM clocks of cuda:1 (GPU is lost)"));
  EXPECT_THAT(fail, HasSubstr("keeps them for the next start"));
  ASSERT_TRUE(fs::exists(record));
  EXPECT_EQ(read_json(record)["gpus"].size(), 1u);
  lock.reset();
  // Still failing: the start says so and keeps the record.
  auto said = restore_left_clock_locks(&c, record);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_THAT(said[0], HasSubstr("could not give back the SM clocks of GPU 0000:02:00.0 (cuda:1)"));
  EXPECT_TRUE(fs::exists(record));
  // The GPU is back: the next lock restores first, then takes its own.
  c.fail_reset.clear();
  ClockLock again(c, devices({"cuda:0"}), "max", record);
  EXPECT_EQ(c.locked.count("0000:02:00.0"), 0u);
  EXPECT_EQ(c.locked.at("0000:01:00.0"), 1980u);
}

// Another live process holds a lock: refused, and its record untouched.
TEST(ClockLock, ALockHeldByALiveProcessIsNotTaken) {
  TempDir d;
  const auto record = d.path() / "clock-lock.json";
  FakeClocks c;
  ClockLock held(c, devices({"cuda:0"}), "max", record);
  const auto before = read_json(record);
  EXPECT_TRUE(restore_left_clock_locks(&c, record).empty());  // the owner lives: not ours
  try {
    ClockLock second(c, devices({"cuda:1"}), "max", record);
    FAIL() << "not refused";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(fmt::format("hetbench pid {}", getpid())));
    EXPECT_THAT(e.what(), HasSubstr("holds GPU clocks locked"));
  }
  EXPECT_EQ(read_json(record), before);
  EXPECT_EQ(c.locked.count("0000:02:00.0"), 0u);
}

// The command line: a refusal is one line naming the option, exit status 2, and nothing
// recorded; without NVIDIA GPUs (or NVML) that is what every --lock-clocks gets here.
TEST(ClockLock, TheCommandLineRefusesInOneLineAndRecordsNothing) {
  TempDir d;
  const std::string env = "HETBENCH_STATE_DIR=" + (d.path() / "state").string();
  for (const char* cmd : {"run copy --device host --size 1000 --reps 2 --lock-clocks max",
                          "run copy --device host --size 1000 --reps 2 --lock-clocks fast",
                          "tune copy --device host --variant loop --size 1000 --budget 2 --db none --lock-clocks base"}) {
    SCOPED_TRACE(cmd);
    const auto r = run_hetbench(std::string(cmd) + " --out " + (d.path() / "out").string(), env);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("hetbench: error: --lock-clocks"));
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_FALSE(fs::exists(d.path() / "out")) << "an experiment folder was made";
  }
}

// A record left by a process that is gone, read by the program at its start: where the
// GPU cannot be reached here (no NVML), it says so and keeps the record.
TEST(ClockLock, TheProgramsStartSaysWhatItCouldNotRestore) {
  TempDir d;
  fs::create_directories(d.path() / "state");
  std::ofstream(d.path() / "state" / "clock-lock.json")
      << R"({"format":1,"pid":999999999,"pid_start":"1","since":"2026-12-06T00:00:00Z","request":"max",)"
      << R"("gpus":[{"gpu":"0000:7f:00.0","devices":["cuda:3"],"mhz":1980}]})";
  const auto r = run_hetbench("list ops", "HETBENCH_STATE_DIR=" + (d.path() / "state").string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("GPU 0000:7f:00.0 (cuda:3)"));
  EXPECT_THAT(r.output, HasSubstr("hetbench pid 999999999"));
  EXPECT_TRUE(fs::exists(d.path() / "state" / "clock-lock.json"));
}
