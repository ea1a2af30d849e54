// sweep --resume: a sweep whose whole process tree is SIGKILLed at random moments (writes
// slowed so that kills land inside records) loads after every kill and resumes to exactly
// its planned points, each once and correct; a changed plan is refused; --retry-errors;
// run and interrupted experiments resume; the spec file and command line are recorded;
// the progress line shows on a terminal only.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "engine/record/results.hpp"
#include "util/cache.hpp"
#include "util/json_file.hpp"
#include "test_util.hpp"

using namespace hetbench::test;
namespace fs = std::filesystem;

namespace {

// Host points only, so that every point is ok on any machine: 2 variants x 2 precisions x
// 4 sizes of dot, and axpy at 3 sizes.
const char* kSpec = R"({"name": "killme", "reps": 3, "warmup": 0, "devices": "host", "variants": ["loop", "omp"],
  "runs": [{"op": "dot", "precisions": ["S", "D"], "sizes": ["1000", "30000", "100000", "300000"]},
           {"op": "axpy", "precisions": ["D"], "sizes": ["2000", "50000", "200000"]}]})";

// Starts hetbench in a process group of its own, so that the whole tree can be killed.
pid_t spawn_group(const std::string& args, const std::string& env) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    std::string cmd = env + " exec " + HETBENCH_BINARY + " " + args + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  return pid;
}

std::string identity(const nlohmann::json& r) {
  return r["point"].dump() + " " + r.value("variant_id", "") + " " + r.value("device", "") + " " +
         r.value("precision", "") + " " + r["sizes"].dump() + " " + r["params"].dump();
}

void expect_complete(const fs::path& dir, const std::vector<nlohmann::json>& whole, std::uint64_t seed) {
  const auto recs = hetbench::read_results(dir);
  ASSERT_EQ(recs.size(), whole.size()) << "seed " << seed;
  std::map<int, const nlohmann::json*> by_point;
  for (const auto& r : recs) EXPECT_TRUE(by_point.emplace(r["point"].get<int>(), &r).second) << "twice: " << r.dump();
  for (const auto& w : whole) {
    ASSERT_TRUE(by_point.count(w["point"].get<int>())) << identity(w);
    const auto& r = *by_point[w["point"].get<int>()];
    EXPECT_EQ(identity(r), identity(w)) << "seed " << seed;
    EXPECT_EQ(r["status"], "ok") << describe(r);
    EXPECT_TRUE(r["validation"]["passed"].get<bool>()) << describe(r);
    EXPECT_EQ(r["validation"]["checked"], w["validation"]["checked"]);
    EXPECT_EQ(r["seed"], w["seed"]);
  }
  const auto exp = read_json(dir / "experiment.json");
  EXPECT_EQ(exp["status"], "complete");
  EXPECT_EQ(exp["points"], whole.size());
  EXPECT_EQ(exp["planned"], whole.size());
  std::ifstream csv(dir / "results.csv");
  std::size_t rows = 0;
  for (std::string l; std::getline(csv, l);) ++rows;
  EXPECT_EQ(rows, recs.size() + 1);
}

// `hetbench run ARGS` on the host with two repetitions, into tmp: its folder.
fs::path recorded_run(const TempDir& tmp, const std::string& args) {
  auto r = run_hetbench("run " + args + " --device host --reps 2 --warmup 0 --out " + tmp.str());
  EXPECT_EQ(r.status, 0) << r.output;
  return experiment_in(tmp.path());
}

}  // namespace

TEST(SweepResume, KilledSweepsResumeToThePlannedPointsOnce) {
  TempDir tmp;
  write_text(tmp.path() / "spec.json", kSpec);
  const std::string sweep = "sweep " + (tmp.path() / "spec.json").string() + " --seed 4242 --out ";
  // Each record and each experiment.json is written in two halves 40 ms apart: a good
  // part of the kills land inside a write.
  const std::string env = "HETBENCH_TEST_SLOW_WRITES=40";
  const auto t0 = std::chrono::steady_clock::now();
  auto whole = run_hetbench(sweep + (tmp.path() / "whole").string(), env);
  const double t_whole = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(whole.status, 0) << whole.output;
  const auto whole_recs = hetbench::read_results(experiment_in(tmp.path() / "whole"));
  ASSERT_EQ(whole_recs.size(), 22u);

  const auto seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const fs::path root = tmp.path() / "killed";
  int kills = 0, torn = 0;
  // One kill certainly inside a record: as soon as results.jsonl ends in half a line.
  {
    const pid_t pid = spawn_group(sweep + root.string(), env);
    bool inside = false;
    for (int i = 0; i < 20000 && !inside; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      const auto d = experiment_in(root);
      if (d.empty()) continue;
      std::ifstream f(d / "results.jsonl", std::ios::ate | std::ios::binary);
      if (!f || f.tellg() <= 0) continue;
      f.seekg(-1, std::ios::end);
      inside = f.get() != '\n';
    }
    killpg(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    ASSERT_TRUE(inside) << "no torn record seen";
    EXPECT_EQ(hetbench::read_results(experiment_in(root)).size() + 1,
              [&] {
                std::ifstream f(experiment_in(root) / "results.jsonl");
                std::size_t n = 0;
                for (std::string l; std::getline(f, l);) ++n;
                return n;
              }());  // the torn line is skipped
    ++kills;
    ++torn;
  }
  double span = 1.0;
  for (int round = 0; round < 40 && kills < 8; ++round) {
    fs::path dir = experiment_in(root);
    if (dir.empty() && fs::exists(root)) fs::remove_all(root);  // killed before experiment.json existed
    const pid_t pid = spawn_group(dir.empty() ? sweep + root.string() : "sweep --resume " + dir.string(), env);
    // From before the folder exists (the start takes a while) to about the end.
    const double at = std::uniform_real_distribution<double>(0.05, span)(rng) * t_whole;
    std::this_thread::sleep_for(std::chrono::duration<double>(at));
    killpg(pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    const bool killed = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
    dir = experiment_in(root);
    if (dir.empty()) continue;
    kills += killed;  // counted once the experiment exists
    // What a kill leaves loads: experiment.json parses, results.jsonl reads (a torn last
    // line skipped), and no point is recorded twice.
    EXPECT_NO_THROW(read_json(dir / "experiment.json")) << "seed " << seed;
    std::vector<nlohmann::json> recs;
    ASSERT_NO_THROW(recs = hetbench::read_results(dir)) << "seed " << seed;
    std::string text;
    {
      std::ifstream f(dir / "results.jsonl");
      text.assign(std::istreambuf_iterator<char>(f), {});
    }
    torn += !text.empty() && text.back() != '\n';
    std::set<int> points;
    for (const auto& r : recs) EXPECT_TRUE(points.insert(r["point"].get<int>()).second) << "seed " << seed;
    if (killed) continue;
    if (kills >= 3) break;
    // It finished before the kill (a resume has fewer points left): start over, aiming earlier.
    fs::remove_all(root);
    span = std::max(0.3, span * 0.7);
  }
  EXPECT_GE(kills, 3) << "seed " << seed;  // kills of an existing experiment
  const fs::path dir = experiment_in(root);
  auto last = run_hetbench(dir.empty() ? sweep + root.string() : "sweep --resume " + dir.string());
  ASSERT_EQ(last.status, 0) << last.output << " (seed " << seed << ")";
  expect_complete(experiment_in(root), whole_recs, seed);
  std::cout << "[ info ] " << kills << " kills, " << torn << " left a torn record (seed " << seed << ")\n";
  // A finished experiment resumes to itself, measuring nothing.
  last = run_hetbench("sweep --resume " + experiment_in(root).string());
  EXPECT_EQ(last.status, 0) << last.output;
  EXPECT_NE(last.output.find("22 of 22 points finished"), std::string::npos) << last.output;
  expect_complete(experiment_in(root), whole_recs, seed);
}

TEST(SweepResume, AChangedPlanIsRefusedNamingThePoint) {
  TempDir tmp;
  const auto dir = recorded_run(tmp, "dot --variant loop --size 1000,2000 --precision S");
  const auto before = hetbench::read_results(dir);
  ASSERT_EQ(before.size(), 2u);
  // The second point is lost; the recorded run now asks for other sizes.
  {
    std::ofstream(dir / "results.jsonl") << before[0].dump() << "\n";
    auto exp = read_json(dir / "experiment.json");
    exp["runs"][0]["sizes"] = nlohmann::json::array({"1500,2000"});
    std::ofstream(dir / "experiment.json") << exp.dump(2);
  }
  auto r = run_hetbench("sweep --resume " + dir.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("point 0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(R"(sizes was {"n":1000,"soa":0} and is now {"n":1500,"soa":0})"), std::string::npos)
      << r.output;
  EXPECT_EQ(hetbench::read_results(dir).size(), 1u);  // nothing written
  // A record of another variant at the point's index is refused the same way.
  {
    auto exp = read_json(dir / "experiment.json");
    exp["runs"][0]["sizes"] = nlohmann::json::array({"1000,2000"});
    std::ofstream(dir / "experiment.json") << exp.dump(2);
    auto rec = before[0];
    rec["variant_id"] = "host/dot/omp";
    std::ofstream(dir / "results.jsonl") << rec.dump() << "\n";
  }
  r = run_hetbench("sweep --resume " + dir.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("variant_id was \"host/dot/omp\" and is now \"host/dot/loop\""), std::string::npos)
      << r.output;
}

TEST(SweepResume, RetryErrorsMeasuresThoseAgainOnce) {
  TempDir tmp;
  const auto dir = recorded_run(tmp, "axpy --variant loop --size 1000,2000,3000,4000 --precision D");
  auto recs = hetbench::read_results(dir);
  ASSERT_EQ(recs.size(), 4u);
  // As a worker crash, a timeout, an error and a newer hetbench's status would leave them.
  const std::vector<std::string> statuses{"crashed", "timeout", "error", "later-status"};
  {
    std::ofstream f(dir / "results.jsonl");
    for (std::size_t i = 0; i < 4; ++i) {
      recs[i]["status"] = statuses[i];
      f << recs[i].dump() << "\n";
    }
  }
  auto r = run_hetbench("sweep --resume " + dir.string());  // all four are finished
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(hetbench::read_results(dir), recs);
  EXPECT_EQ(read_json(dir / "experiment.json")["errors"], 4);
  r = run_hetbench("sweep --resume " + dir.string() + " --retry-errors");
  EXPECT_EQ(r.status, 1) << r.output;  // the unknown status stays, as an error
  const auto after = hetbench::read_results(dir);
  ASSERT_EQ(after.size(), 4u);
  std::map<int, std::string> status;
  for (const auto& a : after) EXPECT_TRUE(status.emplace(a["point"].get<int>(), a["status"]).second);
  EXPECT_EQ(status, (std::map<int, std::string>{{0, "ok"}, {1, "ok"}, {2, "ok"}, {3, "later-status"}}));
  const auto exp = read_json(dir / "experiment.json");
  EXPECT_EQ(exp["errors"], 1);
  EXPECT_EQ(exp["resumed"].size(), 2u);
}

TEST(SweepResume, AnInterruptedRunResumesAndCutShortPointsAreMeasuredAgain) {
  TempDir tmp;
  const auto dir = recorded_run(tmp, "dot --variant loop --size 1000,2000,3000 --precision S --seed 9");
  auto recs = hetbench::read_results(dir);
  ASSERT_EQ(recs.size(), 3u);
  // Ctrl-C in point 1: recorded as far as it got; point 2 never started.
  recs[1]["timing"]["stop"] = "interrupted";
  {
    std::ofstream f(dir / "results.jsonl");
    f << recs[0].dump() << "\n" << recs[1].dump() << "\n";
  }
  auto r = run_hetbench("sweep --resume " + dir.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("1 of 3 points finished, 1 to measure again"), std::string::npos) << r.output;
  const auto after = hetbench::read_results(dir);
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0], recs[0]);
  for (const auto& a : after) EXPECT_EQ(a["timing"]["stop"], "fixed_count") << a.dump();
  EXPECT_EQ(after[1]["point"], 1);
  EXPECT_EQ(after[2]["point"], 2);
}

TEST(SweepResume, BadInputIsOneClearError) {
  TempDir tmp;
  write_text(tmp.path() / "spec.json", kSpec);
  auto tune = run_hetbench("tune axpy --device host --variant omp --size 1000 --precision S --reps 2 --warmup 0 "
                           "--budget 1 --seed 3 --db none --out " + (tmp.path() / "t").string());
  ASSERT_EQ(tune.status, 0) << tune.output;
  const auto tuned = experiment_in(tmp.path() / "t").string();
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"sweep --resume " + tmp.str() + "/missing", "has no experiment.json"},
           {"sweep --resume " + tuned, "tune --resume"},
           {"sweep " + (tmp.path() / "spec.json").string() + " --resume " + tuned, "give no spec file"},
           {"sweep --seed 3 --resume " + tuned, "--seed cannot change"},
           {"sweep --retry-errors " + (tmp.path() / "spec.json").string(), "goes with --resume"},
           {"sweep", "give a spec file"}}) {
    auto r = run_hetbench(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
  }
}

TEST(SweepProvenance, SpecFileAndCommandLineAreRecorded) {
  TempDir tmp;
  const auto spec = tmp.path() / "spec.json";
  const std::string text = R"({"name": "prov", "reps": 2, "warmup": 0, "devices": "host", "variants": ["loop"],
    "precisions": ["S"], "runs": [{"op": "copy", "sizes": ["100"]}]})";
  write_text(spec, text);
  const std::string args = "sweep " + spec.string() + " --seed 5 --out " + tmp.str() + "/res";
  auto r = run_hetbench(args);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto exp = read_json(experiment_in(tmp.path() / "res") / "experiment.json");
  EXPECT_EQ(exp["command_line"], std::string(HETBENCH_BINARY) + " " + args);
  EXPECT_EQ(exp["spec_file"]["path"], fs::absolute(spec).string());
  EXPECT_EQ(exp["spec_file"]["text"], text);
  EXPECT_EQ(exp["spec_file"]["fnv1a64"], hetbench::hash_hex(text));
  // Off a terminal the progress line stays out of the output.
  EXPECT_EQ(r.output.find("1/1 points"), std::string::npos) << r.output;
}

// On a terminal (script(1) gives hetbench a pseudo-terminal) the line shows.
TEST(SweepProgress, ShowsOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "script(1) is not installed";
  TempDir tmp;
  const std::string cmd = std::string(HETBENCH_BINARY) +
                          " run copy --device host --variant loop --size 100,200,300 --precision S --reps 2 "
                          "--warmup 0 --out " + tmp.str() + "/res";
  FILE* p = popen(("script -qec \"" + cmd + "\" /dev/null 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << out;
  EXPECT_NE(out.find("copy: 3/3 points, 0 failed"), std::string::npos) << out;  // labelled by the experiment
  EXPECT_NE(out.find("\033[K"), std::string::npos) << out;
}
