// hetbench tune end to end on the host and PoCL: constraints pruning, a tuning killed with
// SIGKILL at random moments and resumed, resume with other selectors, bad input; and the
// reopen mode of the experiment writer that resume relies on.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/record/results.hpp"
#include "hetbench/error.hpp"
#include "util/json_file.hpp"
#include "test_util.hpp"

using namespace hetbench::test;

namespace {

const std::string kTune =
    "tune dot --device host --variant omp --size 1000000 --precision S,D --reps 5 --warmup 1 --strategy random "
    "--budget 60% --seed 77";

// Per task, the configurations in evaluation order.
std::map<int, std::vector<std::string>> evaluations(const std::vector<nlohmann::json>& recs) {
  std::map<int, std::vector<std::string>> out;
  for (const auto& r : recs) {
    const int task = r["tune"]["task"];
    EXPECT_EQ(r["tune"]["evaluation"].get<std::size_t>(), out[task].size() + 1) << r.dump();
    out[task].push_back(r["params"].dump());
  }
  return out;
}

}  // namespace

TEST(TuneResume, WriterReopenRepairsATruncatedRecord) {
  TempDir root;
  std::filesystem::path dir;
  {
    hetbench::ExperimentWriter w(root.path(), "t", {{"status", "running"}, {"seed", 5}});
    dir = w.dir();
    w.append({{"point", 0}, {"op", "axpy"}, {"status", "ok"}});
    w.append({{"point", 1}, {"op", "axpy"}, {"status", "ok"}});
  }
  // A kill in the middle of the third record: half a JSON line and half a CSV row.
  std::ofstream(dir / "results.jsonl", std::ios::app) << R"({"point":2,"op":"ax)";
  std::ofstream(dir / "results.csv", std::ios::app) << "2,ax";
  {
    hetbench::ExperimentWriter w(hetbench::ExperimentWriter::Reopen{}, dir);
    EXPECT_EQ(w.experiment()["seed"], 5);
    EXPECT_EQ(w.experiment()["status"], "running");
    w.append({{"point", 2}, {"op", "dot"}, {"status", "ok"}});
    w.finish({{"status", "complete"}});
  }
  const auto recs = hetbench::read_results(dir);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[2]["op"], "dot");
  std::ifstream csv(dir / "results.csv");
  std::vector<std::string> rows;
  for (std::string l; std::getline(csv, l);) rows.push_back(l);
  ASSERT_EQ(rows.size(), 4u);  // header and three rows
  EXPECT_EQ(rows[3], hetbench::ExperimentWriter::csv_row(recs[2]));
  const auto exp = read_json(dir / "experiment.json");
  EXPECT_EQ(exp["status"], "complete");
  EXPECT_EQ(exp["resumed"].size(), 1u);
  EXPECT_THROW(hetbench::ExperimentWriter(hetbench::ExperimentWriter::Reopen{}, root.path() / "none"), hetbench::Error);
}

TEST(TuneResume, KilledTuningsResumeToTheSameEvaluationsAndBest) {
  TempDir whole_root, killed_root;
  auto whole = run_hetbench(kTune + " --out " + whole_root.str());
  ASSERT_EQ(whole.status, 0) << whole.output;
  const auto whole_dir = experiment_in(whole_root.path());
  const auto exp = read_json(whole_dir / "experiment.json");
  ASSERT_EQ(exp["tuning"].size(), 2u);  // S and D
  for (const auto& t : exp["tuning"]) {
    EXPECT_EQ(t["space"].get<int>() % 5, 0);  // THREADS {1, 2, 4, .., cores} x 5 BLOCK values
    EXPECT_EQ(t["evaluations"], (t["space"].get<int>() * 6 + 9) / 10);
  }
  const auto whole_recs = hetbench::read_results(whole_dir);
  const double t_whole = std::max(0.3, exp["tuning"][0]["wall_s"].get<double>() + exp["tuning"][1]["wall_s"].get<double>());

  const auto seed = fresh_seed();
  std::mt19937_64 rng(seed);
  std::filesystem::path dir;
  int kills = 0;
  // Kill anywhere from before the folder exists to past the middle. A round that ends on
  // its own (a loaded machine made the uninterrupted run slow) is not a kill: the next
  // round aims earlier, so that at least three kills land before the tuning completes.
  double span = 0.9;
  // Writes split in two with a pause between (engine/record/results.cpp): kills land inside records too.
  setenv("HETBENCH_TEST_SLOW_WRITES", "10", 1);
  for (int round = 0; round < 16 && kills < 4; ++round) {
    dir = experiment_in(killed_root.path());
    pid_t pid = spawn_hetbench(dir.empty() ? kTune + " --out " + killed_root.str() : "tune --resume " + dir.string());
    const double at = std::uniform_real_distribution<double>(0.05, span)(rng) * (t_whole + 0.3);
    std::this_thread::sleep_for(std::chrono::duration<double>(at));
    kill(pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
      ++kills;
    } else if (kills < 3) {  // finished before the kill: start over, aiming earlier
      span = std::max(0.1, span / 2);
      std::filesystem::remove_all(killed_root.path());
      std::filesystem::create_directories(killed_root.path());
    } else {
      break;
    }
  }
  unsetenv("HETBENCH_TEST_SLOW_WRITES");
  dir = experiment_in(killed_root.path());
  auto last = run_hetbench(dir.empty() ? kTune + " --out " + killed_root.str() : "tune --resume " + dir.string());
  ASSERT_EQ(last.status, 0) << last.output << " (seed " << seed << ")";
  dir = experiment_in(killed_root.path());
  const auto killed_recs = hetbench::read_results(dir);
  EXPECT_GE(kills, 3) << "seed " << seed;
  // The same configurations in the same order, none measured twice.
  EXPECT_EQ(evaluations(killed_recs), evaluations(whole_recs)) << "seed " << seed;
  std::set<std::string> unique;
  for (const auto& r : killed_recs) EXPECT_TRUE(unique.insert(r["tune"]["task"].dump() + r["params"].dump()).second);
  for (std::size_t i = 0; i < killed_recs.size(); ++i) EXPECT_EQ(killed_recs[i]["point"], i);
  // The best is the recorded point with those parameters, tied with (or equal to) the
  // fastest of its task by the recorded intervals.
  const auto kexp = read_json(dir / "experiment.json");
  EXPECT_EQ(kexp["status"], "complete");
  ASSERT_EQ(kexp["tuning"].size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const auto& t = kexp["tuning"][k];
    ASSERT_TRUE(t["found"].get<bool>()) << t.dump();
    const auto& best = killed_recs.at(t["point"].get<std::size_t>());
    EXPECT_EQ(best["params"], t["params"]);
    const nlohmann::json* fastest = nullptr;
    for (const auto& r : killed_recs)
      if (r["tune"]["task"] == k && r["status"] == "ok" &&
          (!fastest || r["timing"]["seconds"]["median"] < (*fastest)["timing"]["seconds"]["median"]))
        fastest = &r;
    ASSERT_NE(fastest, nullptr);
    const auto &b = best["timing"]["seconds"], &f = (*fastest)["timing"]["seconds"];
    EXPECT_FALSE(b["ci95_lo"].get<double>() > f["ci95_hi"].get<double>() ||
                 b["ci95_hi"].get<double>() < f["ci95_lo"].get<double>());
  }
}

TEST(TuneResume, OtherSelectorsOrSettingsAreRefused) {
  TempDir root;
  const std::string small =
      "tune axpy --device host --variant omp --size 1000 --precision S --reps 2 --warmup 0 --strategy annealing "
      "--budget 3 --seed 4";
  auto r = run_hetbench(small + " --out " + root.str());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dir = experiment_in(root.path()).string();
  const auto n = hetbench::read_results(dir).size();
  ASSERT_GE(n, 1u);
  r = run_hetbench("tune axpy --device host --variant omp --size 2000 --precision S --reps 2 --warmup 0 --resume " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("selectors differ"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sizes"), std::string::npos) << r.output;
  r = run_hetbench("tune --reps 3 --resume " + dir);  // a selector without the op
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("reps was 2 and is now 3"), std::string::npos) << r.output;
  r = run_hetbench("tune --strategy genetic --resume " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("strategy"), std::string::npos) << r.output;
  // The same command resumes a finished tuning without measuring anything again.
  r = run_hetbench(small + " --resume " + dir);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(hetbench::read_results(dir).size(), n);
}

TEST(TuneResume, BadInputIsOneClearError) {
  TempDir root;
  const std::string base = "tune axpy --device host --size 1000 --reps 2 --out " + root.str();
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {base + " --budget 12x", "--budget '12x'"},
           {base + " --strategy tabu", "unknown strategy 'tabu'"},
           {base + " --param NOPE=1", "unknown parameter 'NOPE'"},
           {"tune --resume " + root.str() + "/missing", "cannot read"},
           {"tune --device host", "give the op"}}) {
    auto r = run_hetbench(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
  }
}

// Constraints prune the space before anything is built: the pruned configurations are
// counted, never measured nor recorded, and the budget is a fraction of what is left.
TEST(TuneCli, ConstraintsPruneTheSpaceOnPocl) {
  TempDir root;
  auto r = run_hetbench(
      "tune spmv --device opencl --variant vector --matrix gen:poisson3d:n=6 --precision S --reps 2 --warmup 0 "
      "--strategy genetic --budget 5% --seed 3 --out " + root.str());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dir = experiment_in(root.path());
  const auto exp = read_json(dir / "experiment.json");
  ASSERT_EQ(exp["tuning"].size(), 1u);
  const auto& t = exp["tuning"][0];
  // TPR 2..1024 x WG 16..1024 (powers of two): 70, of which TPR > WG (21) and any WG
  // above the device's maximum are pruned.
  EXPECT_EQ(t["space"].get<int>() + t["pruned"].get<int>(), 70) << t.dump();
  EXPECT_GE(t["pruned"].get<int>(), 21);
  const auto recs = hetbench::read_results(dir);
  EXPECT_EQ(recs.size(), t["evaluations"].get<std::size_t>());
  EXPECT_EQ(recs.size(), (t["space"].get<std::size_t>() * 5 + 99) / 100);
  for (const auto& rec : recs) {
    EXPECT_LE(rec["params"]["TPR"].get<int>(), rec["params"]["WG"].get<int>()) << rec.dump();
    EXPECT_NE(rec["status"], "skipped");
    EXPECT_EQ(rec["tune"]["strategy"], "genetic");
  }
  EXPECT_NE(r.output.find("pruned by constraints"), std::string::npos) << r.output;
}

// A tuning starts from the database: after the defaults it measures the parameters of the
// variant's entries for other problems (nearest first), records them with the task's first
// evaluation, and a resume takes them from there even when the database has changed.
TEST(TuneCli, TheSearchStartsFromTheDatabaseAndAResumeKeepsItsStarts) {
  TempDir root;
  const std::string db = (root.path() / "tuning.db").string();
  const std::string base = "tune dot --device host --variant omp --precision S --reps 2 --warmup 0 --db " + db;
  // Entries at two other sizes, with BLOCK off its default (4096): 2^13 is nearer 2^16.
  for (const auto& [size, block] : {std::pair{"2^13", 65536}, std::pair{"2^20", 256}}) {
    TempDir out;
    auto r = run_hetbench(fmt::format("{} --out {} --size {} --param BLOCK={} --param THREADS=1 --strategy exhaustive "
                                      "--seed 1", base, out.str(), size, block));
    ASSERT_EQ(r.status, 0) << r.output;
  }
  const auto starts = nlohmann::json::parse(R"([{"BLOCK": 65536, "THREADS": 1}, {"BLOCK": 256, "THREADS": 1}])");

  const std::string tune = base + " --out " + root.str() + " --size 2^16 --strategy random --budget 4 --seed 2";
  auto r = run_hetbench(tune);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("starts from 2 parameter set(s) of the tuning database"), std::string::npos) << r.output;
  const auto dir = experiment_in(root.path());
  auto recs = hetbench::read_results(dir);
  ASSERT_EQ(recs.size(), 4u);
  EXPECT_EQ(recs[0]["params"]["BLOCK"], 4096) << "the defaults first";
  EXPECT_EQ(recs[0]["tune"]["starts"], starts);
  EXPECT_EQ(recs[1]["params"], starts[0]) << "then the database's entries, the nearest first";
  EXPECT_EQ(recs[2]["params"], starts[1]);
  EXPECT_FALSE(recs[1]["tune"].contains("starts"));

  // An entry for this very size since (BLOCK 1024, faster than anything): a new tuning
  // starts there, ...
  const auto exported = (root.path() / "db.json").string();
  ASSERT_EQ(run_hetbench("db export --db " + db + " --out " + exported).status, 0);
  auto j = read_json(exported);
  auto e = j["entries"][0];
  e["features"]["n"] = 1 << 16;
  e["params"] = {{"BLOCK", 1024}, {"THREADS", 1}};
  e["rate"] = e["rate_lo"] = e["rate_hi"] = 1e9;
  j["entries"] = nlohmann::json::array({e});
  hetbench::test::write_text(exported, j.dump());
  r = run_hetbench("db import " + exported + " --db " + db);
  ASSERT_EQ(r.status, 0) << r.output;
  TempDir fresh;
  r = run_hetbench(base + " --out " + fresh.str() + " --size 2^16 --strategy random --budget 2 --seed 2 --starts 1");
  ASSERT_EQ(r.status, 0) << r.output;
  recs = hetbench::read_results(experiment_in(fresh.path()));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0]["tune"]["starts"], nlohmann::json::parse(R"([{"BLOCK": 1024, "THREADS": 1}])"));
  EXPECT_EQ(recs[1]["params"]["BLOCK"], 1024);

  // ... but the tuning killed after its first evaluation (its records cut to the first)
  // resumes with the starts it recorded.
  {
    std::ifstream in(dir / "results.jsonl");
    std::string first;
    std::getline(in, first);
    in.close();
    std::ofstream(dir / "results.jsonl", std::ios::trunc) << first << "\n";
  }
  r = run_hetbench("tune --resume " + dir.string() + " --db " + db);
  ASSERT_EQ(r.status, 0) << r.output;
  recs = hetbench::read_results(dir);
  ASSERT_EQ(recs.size(), 4u);
  EXPECT_EQ(recs[1]["params"], starts[0]) << "the recorded start, not the database's nearer entry";
  EXPECT_EQ(recs[2]["params"], starts[1]);

  // Recorded starts edited by hand: one clear error naming the key, nothing measured.
  {
    auto first = recs[0];
    first["tune"]["starts"] = nlohmann::json::parse(R"([{"BLOCK": "big"}])");
    std::ofstream(dir / "results.jsonl", std::ios::trunc) << first.dump() << "\n";
  }
  r = run_hetbench("tune --resume " + dir.string() + " --db " + db);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("key 'tune.starts[0].BLOCK': expected an integer"), std::string::npos) << r.output;
  EXPECT_EQ(hetbench::read_results(dir).size(), 1u);

  // --starts 0: none, and an empty list recorded.
  TempDir none;
  r = run_hetbench(base + " --out " + none.str() + " --size 2^16 --strategy random --budget 2 --seed 2 --starts 0");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("starts from"), std::string::npos) << r.output;
  recs = hetbench::read_results(experiment_in(none.path()));
  ASSERT_GE(recs.size(), 1u);
  EXPECT_EQ(recs[0]["tune"]["starts"], nlohmann::json::array());
}
