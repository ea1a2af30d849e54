// CPU frequencies and governors under each point (backends/host/cpu_clocks.cpp): on a
// cpufreq tree of the kernel's layout with known values (the machines CI runs on have no
// frequency driver), for the host and for PoCL's CPU device, and this machine's own tree
// or its one-line reason.
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;
namespace fs = std::filesystem;

namespace {

// The timing objects of a DOT run on `device` with `variant`.
std::vector<nlohmann::json> timings(const std::string& device, const std::string& variant, const std::string& env,
                                    const fs::path& out) {
  auto r = run_hetbench("run dot --device " + device + " --variant " + variant +
                            " --precision S --size 100003 --no-db --reps 7 --out " + out.string(),
                        env);
  EXPECT_EQ(r.status, 0) << r.output;
  std::vector<nlohmann::json> t;
  for (const auto& rec : hetbench::read_results(only_experiment(out))) t.push_back(rec.value("timing", nlohmann::json()));
  return t;
}

void cpu(const fs::path& root, int i, long long khz, const std::string& governor) {
  const auto dir = root / fmt::format("cpu{}", i) / "cpufreq";
  fs::create_directories(dir);
  std::ofstream(dir / "scaling_cur_freq") << khz << "\n";
  std::ofstream(dir / "scaling_governor") << governor << "\n";
}

}  // namespace

TEST(CpuClocks, MeanFrequencyPerSampleAndTheGovernors) {
  TempDir d;
  const auto root = d.path() / "cpu";
  cpu(root, 0, 2400000, "performance");
  cpu(root, 1, 1800000, "powersave");
  cpu(root, 12, 2100000, "performance");
  fs::create_directories(root / "cpufreq");  // not a CPU: the policy folder beside them
  fs::create_directories(root / "cpu3");     // a CPU without cpufreq: left out
  const std::string env = "HETBENCH_CPUFREQ_ROOT=" + root.string();
  for (const auto& [device, variant] : {std::pair{"host", "loop"}, std::pair{"opencl:0:0", "vec"}}) {
    SCOPED_TRACE(device);
    const auto ts = timings(device, variant, env, d.path() / device);
    ASSERT_EQ(ts.size(), 1u);
    const auto& t = ts[0];
    ASSERT_TRUE(t.contains("cpu_clock_mhz")) << t.dump();
    EXPECT_EQ(t["cpu_clock_mhz"].size(), t["samples"].size());
    for (const auto& mhz : t["cpu_clock_mhz"]) EXPECT_EQ(mhz, 2100);  // (2400 + 1800 + 2100) / 3
    EXPECT_EQ(t["cpu_governors"], nlohmann::json({"performance", "powersave"}));
    EXPECT_FALSE(t.contains("cpu_clock_why"));
  }
}

TEST(CpuClocks, NoTreeSaysWhyInOneLine) {
  TempDir d;
  const auto ts = timings("host", "loop", "HETBENCH_CPUFREQ_ROOT=" + (d.path() / "none").string(), d.path() / "o");
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_FALSE(ts[0].contains("cpu_clock_mhz"));
  const std::string why = ts[0].value("cpu_clock_why", "");
  EXPECT_THAT(why, HasSubstr("no CPU frequencies"));
  EXPECT_THAT(why, HasSubstr((d.path() / "none").string()));
  EXPECT_EQ(why.find('\n'), std::string::npos);
}

// This machine: its frequencies, or the reason there are none; never neither.
TEST(CpuClocks, ThisMachinesFrequenciesOrWhy) {
  TempDir d;
  const auto ts = timings("host", "loop", "", d.path() / "m");
  ASSERT_EQ(ts.size(), 1u);
  const auto& t = ts[0];
  if (t.contains("cpu_clock_mhz")) {
    EXPECT_EQ(t["cpu_clock_mhz"].size(), t["samples"].size());
    EXPECT_GT(t["cpu_clock_mhz"][0].get<unsigned>(), 0u);
  } else {
    EXPECT_THAT(t.value("cpu_clock_why", ""), HasSubstr("no CPU frequencies")) << t.dump();
  }
}
