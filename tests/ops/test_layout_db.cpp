// Layouts in the tuning database (docs/tuning-db.md, "Layouts"): tune searches the layout
// like a parameter and stores the winner with it; run (named variant or auto) takes the
// entry's layout when its size names none and says so in param_source; a layout file
// that is gone or changed gives one clear message and the op's default layout.
#include <sqlite3.h>

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/record/results.hpp"
#include "ops/layout_ref.hpp"
#include "test_util.hpp"
#include "tuning/db.hpp"
#include "util/json_file.hpp"

namespace hetbench {
namespace {

using testing::HasSubstr;
using testing::StartsWith;
namespace fs = std::filesystem;

struct LayoutDb : testing::Test {
  test::TempDir tmp;
  std::string db = (tmp.path() / "tuning.db").string();
  std::string file = (tmp.path() / "mine.layout").string();
  void SetUp() override {
    fs::copy_file(fs::path(test::source_dir()) / "layouts" / "nbody" / "aos.layout", file);
  }
  // One nbody point of 200 bodies on the host; the records.
  std::vector<nlohmann::json> run(const std::string& extra, const std::string& size = "200",
                                  std::string* output = nullptr) {
    test::TempDir out;
    auto r = test::run_hetbench("run nbody --device host --precision S --size " + size +
                                " --reps 2 --warmup 0 --db " + db + " --out " + out.str() + " " + extra);
    EXPECT_EQ(r.status, 0) << r.output;
    if (output) *output = r.output;
    return read_results(test::only_experiment(out.path()));
  }
};

TEST_F(LayoutDb, TuneStoresTheWinningLayoutAndRunTakesIt) {
  auto r = test::run_hetbench("tune nbody --device host --variant host/nbody/omp --precision S --size 200 --param THREADS=1 "
                              "--param LAYOUT=soa,aosoa --layout " + file + " --strategy exhaustive --reps 3 --warmup 1 "
                              "--seed 5 --db " + db + " --out " + (tmp.path() / "t").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto exp = read_json_file((test::only_experiment(tmp.path() / "t") / "experiment.json").string());
  // One problem: the three layouts are one tuning space, not three problems.
  ASSERT_EQ(exp["tuning"].size(), 1u) << exp["tuning"].dump();
  const auto& best = exp["tuning"][0];
  EXPECT_EQ(best["evaluations"], 3);
  EXPECT_EQ(best["space"], 3);
  ASSERT_TRUE(best.contains("layout")) << best.dump();
  const LayoutRef won = layout_ref_from_json(best["layout"], "tuning[0]");
  EXPECT_EQ(best["sizes"]["input"], won.shipped ? won.name : won.file);
  const auto entries = tuning::TuningDb(db).list();
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_TRUE(entries[0].layout);
  EXPECT_EQ(*entries[0].layout, won);
  EXPECT_EQ(won.sha256.size(), 64u);

  // No layout named: the entry's, said like a parameter's source; named: the command line.
  for (const char* variant : {"host/nbody/omp", "auto"}) {
    SCOPED_TRACE(variant);
    auto recs = run(std::string("--variant ") + variant);
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0]["sizes"]["input"], best["sizes"]["input"]);
    EXPECT_THAT(recs[0]["param_source"]["LAYOUT"].get<std::string>(), StartsWith("db:1 same device, distance 0"));
    EXPECT_EQ(recs[0]["params"]["THREADS"], 1);
  }
  auto recs = run("--variant host/nbody/omp", "200@soaos");
  EXPECT_EQ(recs[0]["param_source"]["LAYOUT"], "command line");
  EXPECT_THAT(recs[0]["param_source"]["THREADS"].get<std::string>(), HasSubstr("tuned with layout"));
  recs = run("--variant host/nbody/omp --no-db");
  EXPECT_EQ(recs[0]["param_source"]["LAYOUT"], "op default");
  EXPECT_EQ(recs[0]["features"]["layout"], "soa");
}

TEST_F(LayoutDb, AGoneOrChangedLayoutFileIsSaidAndTheDefaultMeasured) {
  auto r = test::run_hetbench("tune nbody --device host --variant host/nbody/omp --precision S --size 200 --param THREADS=1 "
                              "--layout " + file + " --strategy exhaustive --reps 3 --warmup 1 --seed 5 --db " + db +
                              " --out " + (tmp.path() / "t").string());
  ASSERT_EQ(r.status, 0) << r.output;
  auto recs = run("--variant host/nbody/omp");
  EXPECT_EQ(recs[0]["sizes"]["input"], fs::weakly_canonical(file).string());
  std::ofstream(file, std::ios::app) << "# edited\n";
  std::string out;
  recs = run("--variant host/nbody/omp", "200", &out);
  EXPECT_THAT(out, HasSubstr("changed since it was tuned"));
  EXPECT_EQ(recs[0]["features"]["layout"], "soa");
  EXPECT_THAT(recs[0]["param_source"]["LAYOUT"].get<std::string>(), StartsWith("op default (db:1"));
  fs::remove(file);
  recs = run("--variant auto", "200", &out);
  EXPECT_THAT(out, HasSubstr("tuning database entry 1 chose layout mine.layout"));
  EXPECT_THAT(out, HasSubstr("is gone; the op's default layout is measured instead"));
  EXPECT_EQ(recs[0]["features"]["layout"], "soa");
  EXPECT_EQ(recs[0]["status"], "ok");
}

// A file of schema 1 (before layouts) is read as having none and upgraded when written.
TEST_F(LayoutDb, SchemaOneFilesAreReadAndUpgraded) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  const char* v1 = R"(CREATE TABLE entries (id INTEGER PRIMARY KEY AUTOINCREMENT, backend TEXT NOT NULL,
    dev_name TEXT NOT NULL, dev_vendor TEXT NOT NULL, dev_driver TEXT NOT NULL, dev_version TEXT NOT NULL,
    dev_arch TEXT NOT NULL, variant TEXT NOT NULL, variant_hash TEXT NOT NULL, precision TEXT NOT NULL,
    storage TEXT NOT NULL, op TEXT NOT NULL, class TEXT NOT NULL, features TEXT NOT NULL, params TEXT NOT NULL,
    rate REAL NOT NULL, rate_lo REAL NOT NULL, rate_hi REAL NOT NULL, unit TEXT NOT NULL, experiment TEXT NOT NULL,
    point INTEGER NOT NULL, strategy TEXT NOT NULL, evaluations INTEGER NOT NULL, timestamp TEXT NOT NULL,
    UNIQUE (backend, dev_name, dev_vendor, dev_driver, dev_version, variant, variant_hash, precision, storage, op, class));
    INSERT INTO entries (backend, dev_name, dev_vendor, dev_driver, dev_version, dev_arch, variant, variant_hash,
    precision, storage, op, class, features, params, rate, rate_lo, rate_hi, unit, experiment, point, strategy,
    evaluations, timestamp) VALUES ('host', 'cpu', '', '', '', '', 'host/nbody/omp', 'h', 'S', '', 'nbody', 'n=2^8',
    '{"n": 256}', '{"THREADS": 1}', 1, 1, 1, 'GFLOP/s', '', 0, 'random', 1, '2026-01-01T00:00:00Z');
    PRAGMA application_id=1212306500; PRAGMA user_version=1;)";
  ASSERT_EQ(sqlite3_exec(h, v1, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  sqlite3_close(h);
  {
    auto ro = tuning::TuningDb::open_if_exists(db);
    const auto old = ro->list();
    ASSERT_EQ(old.size(), 1u);
    EXPECT_FALSE(old[0].layout);
  }
  tuning::TuningDb rw(db);
  auto e = rw.list().at(0);
  e.problem = tuning::classify_features("nbody", {{"n", 4096}});
  e.layout = layout_ref("nbody", [&] { Sizes s{{"n", 4096}}; s.input = file; return s; }());
  ASSERT_TRUE(rw.put(e).second);
  const auto both = rw.list();
  ASSERT_EQ(both.size(), 2u);
  EXPECT_FALSE(both[0].layout);
  ASSERT_TRUE(both[1].layout);
  EXPECT_EQ(both[1].layout->name, "mine.layout");
  EXPECT_FALSE(both[1].layout->shipped);
  // The JSON of export and import keeps it.
  EXPECT_EQ(tuning::entry_from_json(tuning::to_json(both[1]), "x").layout, both[1].layout);
}

}  // namespace
}  // namespace hetbench
