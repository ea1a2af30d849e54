// `hetbench db` and `run` with a tuning database, through the real program: list, show,
// export, import (merge, bad files), prune, foreign files, param_source and auto.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "util/json_file.hpp"
#include "test_util.hpp"
#include "tuning/db.hpp"

namespace hetbench {
namespace {

using testing::HasSubstr;
using namespace tuning;

struct DbCli : testing::Test {
  test::TempDir tmp;
  std::string db = (tmp.path() / "tuning.db").string();
  const Variant& omp() {
    for (const auto& v : variants_for("dot"))
      if (v->id() == "host/dot/omp") return *v;
    throw Error("no host/dot/omp");
  }
  TuningEntry entry(long long n, double rate, long long block, std::string hash = "") {
    TuningEntry e;
    e.device = DeviceIdentity::of(resolve_devices("host")[0]->info());
    e.variant_id = "host/dot/omp";
    e.variant_hash = hash.empty() ? variant_hash(omp()) : hash;
    e.precision = Precision::S;
    e.problem = classify_features("dot", {{"n", n}});
    e.storage = storage_key(find_op("dot"), Sizes{{"n", n}});
    e.params = {{"BLOCK", block}};
    e.rate = rate;
    e.unit = "GB/s";
    e.strategy = "exhaustive";
    return e;
  }
  test::CmdResult hb(const std::string& args) { return test::run_hetbench(args); }
};

TEST_F(DbCli, ListShowExportImportPrune) {
  {
    TuningDb d(db);
    d.put(entry(1 << 12, 10, 1024));
    d.put(entry(1 << 20, 20, 16384, "0123456789abcdef"));  // tuned on an older kernel
    auto gone = entry(1 << 20, 20, 16384);
    gone.variant_id = "opencl/dot/not_loaded_now";
    d.put(gone);
  }
  auto r = hb("db list --db " + db);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("host/dot/omp"));
  EXPECT_THAT(r.output, HasSubstr("n=2^12"));
  EXPECT_THAT(r.output, HasSubstr("3 entries"));
  // Each line says its layer; an entry of a changed kernel is marked, and the entries
  // shipped in tuned/ follow the user's.
  EXPECT_THAT(r.output, HasSubstr("user (stale)"));
  EXPECT_THAT(r.output, HasSubstr("user (not loaded)"));
  EXPECT_THAT(r.output, HasSubstr("shipped nvidia-h200.json"));
  EXPECT_THAT(r.output, HasSubstr("shipped entries in"));
  r = hb("db --db " + db + " show 1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"BLOCK\": 1024"));
  EXPECT_THAT(r.output, HasSubstr("\"strategy\": \"exhaustive\""));
  EXPECT_EQ(hb("db show 9 --db " + db).status, 2);

  const auto out = (tmp.path() / "export.json").string();
  ASSERT_EQ(hb("db export --db " + db + " --out " + out).status, 0);
  auto j = read_json_file(out);
  ASSERT_EQ(j["entries"].size(), 3u);
  j["entries"].erase(2);
  test::write_text(out, j.dump());
  // Into a database in a folder that does not exist yet; then merged: the faster wins.
  const auto other = (tmp.path() / "new" / "dir" / "t.db").string();
  r = hb("db import --db " + other + " " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("imported 2 of 2"));
  j["entries"][0]["rate"] = 5;    // slower: kept out
  j["entries"][1]["rate"] = 40;   // faster: replaces
  test::write_text(out, j.dump());
  r = hb("db import --db " + other + " " + out);
  EXPECT_THAT(r.output, HasSubstr("imported 1 of 2"));
  {
    TuningDb d(other);
    ASSERT_EQ(d.list().size(), 2u);
    EXPECT_EQ(d.list()[0].rate, 10);
    EXPECT_EQ(d.list()[1].rate, 40);
  }
  // Stale entries go; the entry of the current kernel stays.
  r = hb("db prune --db " + db);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("removed 2: host/dot/omp"));
  EXPECT_THAT(r.output, HasSubstr("source or metadata changed"));
  EXPECT_THAT(r.output, HasSubstr("removed 1 entries"));
  EXPECT_THAT(r.output, HasSubstr("kept 1 entries of variants not loaded now"));
  auto old = entry(1 << 16, 10, 256);
  old.timestamp = "2020-01-02T03:04:05Z";
  TuningDb(db).put(old);
  r = hb("db prune --db " + db + " --device nosuchdevice --older-than 30d");
  EXPECT_THAT(r.output, HasSubstr("removed 0 entries"));
  r = hb("db prune --db " + db + " --older-than 30d");
  EXPECT_THAT(r.output, HasSubstr("removed 4: host/dot/omp"));
  EXPECT_THAT(r.output, HasSubstr("older than 30d"));
  ASSERT_EQ(TuningDb(db).list().size(), 2u);
  EXPECT_EQ(TuningDb(db).list()[0].id, 1);
  EXPECT_EQ(hb("db prune --db " + db + " --older-than soon").status, 2);
}

TEST_F(DbCli, BadFilesGiveOneClearError) {
  const auto bad = (tmp.path() / "bad.json").string();
  auto j = nlohmann::json{{"hetbench_tuning_db", 1},
                          {"entries", {to_json(entry(1 << 12, 10, 1024)), to_json(entry(1 << 14, 10, 1024))}}};
  // A newer format is refused, not read as this one.
  j["hetbench_tuning_db"] = 99;
  test::write_text(bad, j.dump());
  auto r99 = hb("db import --db " + db + " " + bad);
  EXPECT_EQ(r99.status, 2);
  EXPECT_THAT(r99.output, HasSubstr(bad + ": key 'hetbench_tuning_db' is 99, this hetbench reads format 1"));
  j["hetbench_tuning_db"] = 1;
  j["entries"][1].erase("rate");
  test::write_text(bad, j.dump());
  auto r = hb("db import --db " + db + " " + bad);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr(bad + ": entries[1]: key 'rate': missing"));
  EXPECT_FALSE(std::filesystem::exists(db));  // nothing written
  test::write_text(bad, "{\"entries\": [");
  r = hb("db import --db " + db + " " + bad);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr(bad + ": invalid JSON"));
  const auto foreign = (tmp.path() / "f.sqlite").string();
  ASSERT_EQ(std::system(("sqlite3 " + foreign + " 'CREATE TABLE t(x)'").c_str()), 0);
  r = hb("db list --db " + foreign);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr(foreign + " is an SQLite database but not a hetbench tuning database"));
  r = hb("run dot --device host --variant omp --size 1000 --precision S --reps 1 --out " + tmp.str() + " --db " + foreign);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr(foreign));
}

TEST_F(DbCli, RunTakesParametersFromTheDatabaseAndAutoChoosesByIt) {
  TuningDb(db).put(entry(4096, 10, 1024));
  auto run = [&](const std::string& extra, const std::string& prec = "S") {
    test::TempDir out;
    auto r = hb("run dot --device host --size 5000 --precision " + prec + " --reps 2 --warmup 0 --format json --out " +
                out.str() + " " + extra);
    EXPECT_EQ(r.status, 0) << r.output;
    return read_results(test::only_experiment(out.path()));
  };
  auto recs = run("--variant omp --db " + db);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0]["params"]["BLOCK"], 1024);
  EXPECT_THAT(recs[0]["param_source"]["BLOCK"].get<std::string>(), HasSubstr("db:1 same device, distance 0.288"));
  EXPECT_EQ(recs[0]["param_source"]["THREADS"], "metadata");
  recs = run("--variant omp --no-db --db " + db);
  EXPECT_EQ(recs[0]["params"]["BLOCK"], 4096);
  EXPECT_EQ(recs[0]["param_source"]["BLOCK"], "metadata");
  recs = run("--variant omp --param BLOCK=256 --db " + db);
  EXPECT_EQ(recs[0]["param_source"]["BLOCK"], "command line");
  recs = run("--variant auto --db " + db);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0]["variant_id"], "host/dot/omp");
  EXPECT_EQ(recs[0]["params"]["BLOCK"], 1024);
  EXPECT_THAT(recs[0]["auto"]["reason"].get<std::string>(), HasSubstr("db entry 1, same device"));
  recs = run("--variant auto,libraries", "D");
  for (const auto& r : recs) EXPECT_NE(r["kind"], "kernel");
  EXPECT_THAT(recs[0]["auto"]["reason"].get<std::string>(), HasSubstr("rule: "));
}

// "default": {"S": 64, "D": 128}: each precision its own default, said in param_source.
TEST_F(DbCli, MetadataDefaultsPerPrecision) {
  auto meta = [&](const std::string& name, const std::string& def) {
    std::filesystem::create_directories(tmp.path() / name);
    auto j = nlohmann::json::parse(R"J({"op": "copy", "backend": "opencl", "precisions": ["S", "D"],
        "params": {"WG": {"range": "32:1024:*2"}}, "entry": "copy_simple", "args": ["n", "x", "y"],
        "global": "roundup(n, WG)", "local": "WG"})J");
    j["name"] = name;
    j["source"] = test::source_dir() + "/kernels/portable/copy/simple.k";
    j["params"]["WG"]["default"] = nlohmann::json::parse(def);
    test::write_text(tmp.path() / name / (name + ".json"), j.dump());
    return (tmp.path() / name).string();
  };
  test::TempDir out;
  auto r = hb("--kernels " + meta("pd", R"({"S": 64, "D": 128})") +
              " run copy --variant pd --device opencl --precision S,D --size 1000 --reps 1 --warmup 0 --no-db --out " +
              out.str());
  ASSERT_EQ(r.status, 0) << r.output;
  auto recs = read_results(test::only_experiment(out.path()));
  EXPECT_THAT(hb("--kernels " + meta("pd", R"({"S": 64, "D": 128})") + " list variants").output,
              HasSubstr("default S:64,D:128"));
  ASSERT_EQ(recs.size(), 2u);
  for (const auto& rec : recs) {
    const bool s = rec["precision"] == "S";
    EXPECT_EQ(rec["params"]["WG"], s ? 64 : 128);
    EXPECT_EQ(rec["param_source"]["WG"], s ? "metadata S" : "metadata D");
    EXPECT_EQ(rec["status"], "ok") << rec.dump();
  }
  for (auto [def, what] : {std::pair{R"({"X": 64})", "key 'params.WG.default.X'"},
                           std::pair{R"({"DF": 64})", "not a precision of this variant"},
                           std::pair{R"({"S": 48})", "key 'params.WG.default.S': 48 is not among the values"},
                           std::pair{R"("64")", "expected an integer or an object of PRECISION: integer"}}) {
    r = hb("--kernels " + meta("bad", def) + " list variants");
    EXPECT_EQ(r.status, 2) << def;
    EXPECT_THAT(r.output, HasSubstr(what)) << def;
  }
}

}  // namespace
}  // namespace hetbench
