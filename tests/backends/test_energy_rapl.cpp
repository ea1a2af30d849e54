// CPU energy from RAPL (backends/host/energy_rapl.cpp, rapl.cpp): on this machine's own
// powercap tree where it has one, else the one-line reason; and on a powercap tree of the
// kernel's layout whose counters advance at a known rate (the machines CI runs on have
// none), so that the arithmetic (both policies, DRAM beside the package, core subzones
// left out, a counter wrapping past its range) is checked everywhere.
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/host/rapl.hpp"
#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;
namespace fs = std::filesystem;

namespace {

// The energy objects of a host DOT run (`extra`: more options).
std::vector<nlohmann::json> energies(const std::string& env, const std::string& extra, const fs::path& out) {
  auto r = run_hetbench("run dot --device host --variant loop --precision S --size 2^20 --no-db " + extra + " --out " +
                            out.string(),
                        env);
  EXPECT_EQ(r.status, 0) << r.output;
  std::vector<nlohmann::json> out_j;
  for (const auto& rec : hetbench::read_results(only_experiment(out))) out_j.push_back(rec.value("energy", nlohmann::json()));
  return out_j;
}

// A powercap tree whose package counter advances at `package_w` watts and DRAM's at
// `dram_w`, both wrapping at `range_j` joules, written every millisecond by a thread
// (each value through a rename, as the kernel's reads are whole).
class FakePowercap {
 public:
  FakePowercap(const fs::path& root, double package_w, double dram_w, double range_j, double start_j)
      : root_(root), package_w_(package_w), dram_w_(dram_w), range_j_(range_j), start_j_(start_j) {
    zone("intel-rapl:0", "package-0");
    zone("intel-rapl:0/intel-rapl:0:0", "dram");
    zone("intel-rapl:0/intel-rapl:0:1", "core");  // inside the package: not counted twice
    write_all(0);
    writer_ = std::thread([this] {
      const auto t0 = std::chrono::steady_clock::now();
      while (!stop_) {
        write_all(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  ~FakePowercap() {
    stop_ = true;
    writer_.join();
  }

 private:
  void zone(const std::string& rel, const std::string& name) {
    fs::create_directories(root_ / rel);
    std::ofstream(root_ / rel / "name") << name << "\n";
    std::ofstream(root_ / rel / "max_energy_range_uj") << static_cast<long long>(range_j_ * 1e6) << "\n";
  }
  void put(const std::string& rel, double joules) {
    const auto tmp = root_ / rel / "energy_uj.tmp";
    std::ofstream(tmp) << static_cast<long long>(std::fmod(joules, range_j_) * 1e6) << "\n";
    fs::rename(tmp, root_ / rel / "energy_uj");
  }
  void write_all(double t) {
    put("intel-rapl:0", start_j_ + package_w_ * t);
    put("intel-rapl:0/intel-rapl:0:0", dram_w_ * t);
    put("intel-rapl:0/intel-rapl:0:1", 1000 * t);
  }
  fs::path root_;
  double package_w_, dram_w_, range_j_, start_j_;
  std::atomic<bool> stop_{false};
  std::thread writer_;
};

}  // namespace

TEST(RaplEnergy, ThisMachinesCountersOrOneLineWhy) {
  TempDir d;
  for (const auto& e : energies("", "--reps 3 --energy", d.path() / "a")) {
    ASSERT_TRUE(e.is_object()) << "a host point without an energy object";
    if (e.value("available", false)) {
      EXPECT_EQ(e["domain"], "package") << e.dump();
      EXPECT_THAT(e.value("method", ""), HasSubstr("RAPL")) << e.dump();
      EXPECT_GT(e["energy_per_rep_j"].get<double>(), 0) << e.dump();
    } else {
      const std::string why = e.value("reason", "");
      EXPECT_THAT(why, HasSubstr("RAPL")) << e.dump();
      EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    }
  }
}

TEST(RaplEnergy, PackageAndDramFromAPowercapTree) {
  TempDir d;
  FakePowercap cap(d.path() / "powercap", 20, 5, 1e6, 1000);  // 20 W on the package, 5 W on DRAM
  const std::string env = "HETBENCH_POWERCAP_ROOT=" + (d.path() / "powercap").string();
  // A short point with --energy: a window of back-to-back repetitions.
  auto window = energies(env, "--reps 3 --energy", d.path() / "w");
  // A point whose timed repetitions last long enough: from them, no window.
  auto timed = energies(env, "--min-time 0.4 --max-noise 100 --min-samples 5", d.path() / "t");
  ASSERT_EQ(window.size(), 1u);
  ASSERT_EQ(timed.size(), 1u);
  for (const auto& [e, source] : {std::pair{window[0], "window"}, std::pair{timed[0], "timed-reps"}}) {
    ASSERT_TRUE(e.value("available", false)) << e.dump();
    EXPECT_EQ(e["source"], source) << e.dump();
    EXPECT_EQ(e["domain"], "package");
    EXPECT_THAT(e.value("method", ""), HasSubstr("package-0 + dram")) << e.dump();  // not core
    const double w = e["avg_power_w"].get<double>();
    EXPECT_GT(w, 20 * 0.7) << e.dump();
    EXPECT_LT(w, 20 * 1.3) << e.dump();
    const double per_rep = e["energy_per_rep_j"].get<double>(), dram = e["dram_energy_per_rep_j"].get<double>();
    EXPECT_NEAR(dram / per_rep, 0.25, 0.1) << e.dump();  // 5 W beside 20 W
    EXPECT_GT(e["gb_per_j"].get<double>(), 0);
  }
  // Without --energy a short point says why, in one line.
  auto none = energies(env, "--reps 3", d.path() / "n");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_FALSE(none[0].value("available", true));
  EXPECT_THAT(none[0].value("reason", ""), HasSubstr("--energy measures a window of its own"));
  // No tree at all.
  auto gone = energies("HETBENCH_POWERCAP_ROOT=" + (d.path() / "nothing").string(), "--reps 3 --energy", d.path() / "g");
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_THAT(gone[0].value("reason", ""), HasSubstr("does not exist"));
}

// A counter below its last value has wrapped at max_energy_range_uj: the range is added.
TEST(RaplEnergy, ACounterThatWrapsAddsItsRange) {
  TempDir d;
  const auto pkg = d.path() / "intel-rapl:0", dram = pkg / "intel-rapl:0:0", core = pkg / "intel-rapl:0:1";
  for (const auto& [dir, name] : {std::pair{pkg, "package-0"}, std::pair{dram, "dram"}, std::pair{core, "core"}}) {
    fs::create_directories(dir);
    std::ofstream(dir / "name") << name << "\n";
    std::ofstream(dir / "max_energy_range_uj") << 100000000 << "\n";  // 100 J
    std::ofstream(dir / "energy_uj") << 99000000 << "\n";
  }
  auto doms = hetbench::rapl::open_domains(d.path());
  ASSERT_EQ(doms.list.size(), 2u) << doms.why;  // the core subzone is inside the package
  EXPECT_EQ(hetbench::rapl::domain_names(doms.list), "package-0 + dram");
  std::ofstream(pkg / "energy_uj") << 2000000 << "\n";   // 99 J -> wrapped -> 2 J: 3 J
  std::ofstream(dram / "energy_uj") << 99500000 << "\n";  // 0.5 J, no wrap
  ASSERT_TRUE(hetbench::rapl::advance(doms.list));
  const auto j = hetbench::rapl::totals(doms.list);
  EXPECT_DOUBLE_EQ(j.package, 3.0);
  EXPECT_DOUBLE_EQ(j.dram, 0.5);
  // A counter that cannot be read any more.
  fs::remove(dram / "energy_uj");
  EXPECT_FALSE(hetbench::rapl::advance(doms.list));
  // Where only root may read the counters: said so (meaningless as root, who reads anyway).
  if (geteuid() != 0) {
    fs::permissions(pkg / "energy_uj", fs::perms::none);
    EXPECT_THAT(hetbench::rapl::open_domains(d.path()).why, HasSubstr("cannot be read"));
  }
}
