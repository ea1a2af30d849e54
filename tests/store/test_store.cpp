// The results store on SQLite and on a real PostgreSQL server: adding once, queries
// against the records themselves, experiments written back unchanged, and stores that
// are not ours refused untouched.
#include "store_fixture.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "hetbench/error.hpp"
#include "store/content.hpp"

namespace hetbench::test {

namespace fs = std::filesystem;
using store::Store;

namespace {

std::vector<KeptRow> run_query(Store& s, const store::Filter& f) {
  std::vector<KeptRow> out;
  s.query(f, [&](const store::QueryRow& r) { out.emplace_back(r); });
  return out;
}

}  // namespace

TEST_P(StoreTest, AddsAnExperimentOnceAndQueriesMatchTheRecords) {
  const auto e1 = synthetic_experiment(tmp.path(), "one", a, 300, seed);
  const auto e2 = synthetic_experiment(tmp.path(), "two", b, 200, seed + 1);
  Store s(fresh.url());
  store::ImportCount n;
  const auto ids = s.add({store::read_experiment_folder(e1), store::read_experiment_folder(e2)}, &n);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(n.experiments, 2);
  EXPECT_EQ(n.points, 500);
  // Again, and both again in another call: nothing is added, the same ids come back.
  const auto again = s.add({store::read_experiment_folder(e2), store::read_experiment_folder(e1)}, &n);
  EXPECT_EQ(n.experiments, 0);
  EXPECT_EQ(n.duplicates, 2);
  EXPECT_EQ(again, (std::vector<std::int64_t>{ids[1], ids[0]}));
  ASSERT_EQ(s.experiments().size(), 2u);
  EXPECT_EQ(run_query(s, {}).size(), 500u);

  // One device's GEMM points: those the records say, in order, with their figures.
  const auto recs = records_of(e1);
  std::vector<nlohmann::json> want;
  for (const auto& r : recs)
    if (r["op"] == "gemm" && r["device_name"] == "NVIDIA H200") want.push_back(r);
  store::Filter f;
  f.op = "gemm";
  f.device = "NVIDIA H200";
  const auto got = run_query(s, f);
  ASSERT_EQ(got.size(), want.size());
  ASSERT_GT(got.size(), 10u);
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].experiment, ids[0]);
    EXPECT_EQ(got[i].host, "alpha");
    EXPECT_EQ(got[i].point, want[i]["point"].get<int>());
    EXPECT_EQ(got[i].precision, want[i]["precision"].get<std::string>());
    EXPECT_DOUBLE_EQ(*got[i].gflops, want[i]["gflops"].get<double>());
    EXPECT_DOUBLE_EQ(*got[i].median_s, want[i]["timing"]["seconds"]["median"].get<double>());
  }
  // The device id matches too (cuda:0 is on both machines).
  f.device = "cuda:0";
  std::size_t on_cuda0 = 0;
  for (const auto& e : {e1, e2})
    for (const auto& r : records_of(e)) on_cuda0 += r["op"] == "gemm" && r["device"] == "cuda:0";
  EXPECT_EQ(run_query(s, f).size(), on_cuda0);

  // Every other filter against a count from the records.
  auto count = [&](auto pred) {
    std::size_t k = 0;
    for (const auto& e : {e1, e2})
      for (const auto& r : records_of(e)) k += pred(r);
    return k;
  };
  store::Filter g;
  g.precision = "D";
  g.sizes = {"n=2048..65536"};
  EXPECT_EQ(run_query(s, g).size(), count([](const nlohmann::json& r) {
              const auto& sz = r["sizes"];
              return r["precision"] == "D" && sz.contains("n") && sz["n"] >= 2048 && sz["n"] <= 65536;
            }));
  store::Filter d;
  d.since = "2026-03-01";
  d.until = "2026-06-15";
  d.host = "beta";
  EXPECT_EQ(run_query(s, d).size(), count([](const nlohmann::json& r) {
              const auto t = r["time"].get<std::string>();
              return r["device_name"] != "NVIDIA H200" && r["device_name"] != "pthread-AMD EPYC" && t >= "2026-03-01" &&
                     t.substr(0, 10) <= "2026-06-15";
            }));
  store::Filter v;
  v.variant = recs[0]["variant_id"];
  v.status = "failed";
  EXPECT_EQ(run_query(s, v).size(), count([&](const nlohmann::json& r) {
              return r["variant_id"] == recs[0]["variant_id"] && r["status"] == "failed";
            }));
  store::Filter bad;
  bad.sizes = {"n>5"};
  EXPECT_THROW(run_query(s, bad), Error);
  bad = {};
  bad.since = "yesterday";
  EXPECT_THROW(run_query(s, bad), Error);
}

TEST_P(StoreTest, AStoredExperimentComesBackAsTheSameFolder) {
  const auto e1 = synthetic_experiment(tmp.path() / "in", "back", a, 150, seed);
  Store s(fresh.url());
  const auto content = store::read_experiment_folder(e1);
  const auto id = s.add({content}).front();
  EXPECT_EQ(s.resolve(content.hash.substr(0, 10)), id);
  EXPECT_EQ(s.resolve(std::to_string(id)), id);
  EXPECT_THROW(s.resolve("ffffffffff"), Error);
  EXPECT_THROW(s.resolve("not-an-id"), Error);
  const auto out = s.write_folder(id, tmp.path() / "out");
  EXPECT_EQ(out.filename(), e1.filename());
  for (const char* f : {"experiment.json", "results.jsonl", "results.csv"})
    EXPECT_EQ(file_text(out / f), file_text(e1 / f)) << f;
  EXPECT_EQ(store::read_experiment_folder(out).hash, content.hash);
  EXPECT_THROW(s.write_folder(id, tmp.path() / "out"), Error);  // never over a folder

  // The reference replay, compare and report take.
  EXPECT_EQ(store::experiment_folder(e1.string(), fresh.url(), tmp.path()), e1);
  const auto via = store::experiment_folder("store:" + std::to_string(id), fresh.url(), tmp.path() / "scratch");
  EXPECT_EQ(file_text(via / "results.jsonl"), file_text(e1 / "results.jsonl"));
}

TEST_P(StoreTest, SystemDescriptionComesFromTheExperiment) {
  const auto e1 = synthetic_experiment(tmp.path(), "sys", b, 20, seed);
  const auto c = store::read_experiment_folder(e1);
  EXPECT_EQ(c.system["host"], "beta");
  EXPECT_EQ(c.system["compiler"], "GNU 12.2.0");
  EXPECT_EQ(c.system["git_commit"], c.experiment["git_commit"]);
  ASSERT_EQ(c.system["devices"].size(), 2u);
  EXPECT_EQ(c.system["devices"][0]["driver"], c.experiment["devices"][0]["driver"]);
  EXPECT_EQ(c.system["devices"][0]["max_clock_mhz"], c.experiment["devices"][0]["max_clock_mhz"]);
  EXPECT_EQ(c.hash.size(), 64u);
  // Any change of content changes the hash.
  auto d = c;
  d.points[7].record.back() = ' ';
  d.points[7].record += "}";
  EXPECT_NE(store::read_experiment_folder(e1).hash, store::content_hash(d));
}

TEST_P(StoreTest, TruncatedOrEditedResultsAreRefusedNamingFileAndLine) {
  const auto e1 = synthetic_experiment(tmp.path(), "cut", a, 30, seed);
  const auto jsonl = e1 / "results.jsonl";
  const auto text = file_text(jsonl);
  auto refused = [&](const std::string& body, const std::string& expect) {
    write_text(jsonl, body);
    try {
      store::read_experiment_folder(e1);
      ADD_FAILURE() << "accepted: " << expect;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(jsonl.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  };
  refused(text.substr(0, text.size() - 40), "line 30: truncated record");
  auto lines = text;
  const auto third = lines.find("\"op\":");
  lines.replace(third, 5, "\"xx\":");
  refused(lines, "line 1: key 'op' is missing");
  refused(text + "{\"point\": 3,\n", "line 31: not JSON");
  const auto second = text.find('\n') + 1;
  refused(text + text.substr(second, text.find('\n', second) - second + 1), "point 1 appears twice (record 31)");
  Store s(fresh.url());
  EXPECT_TRUE(s.experiments().empty());
}

TEST_P(StoreTest, ADatabaseThatIsNoStoreIsRefusedUntouched) {
  fresh.exec("CREATE TABLE accounts (id INTEGER); INSERT INTO accounts VALUES (7)");
  try {
    Store s(fresh.url());
    ADD_FAILURE() << "a database with other tables was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a hetbench results store"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fresh.exec("SELECT count(*) FROM hetbench_store"), "error");  // nothing was created
  if (!fresh.pg()) {
    const auto other = tmp.path() / "other.db";
    write_text(other, "this is a text file, not a database\n");
    EXPECT_THROW(Store{other.string()}, Error);
    EXPECT_EQ(file_text(other), "this is a text file, not a database\n");
    write_text(tmp.path() / "file", "x");
    EXPECT_THROW(Store{(tmp.path() / "file" / "below-a-file.db").string()}, Error);
  } else {
    // A server nobody listens on.
    try {
      Store s("postgresql:///postgres?host=/nonexistent&port=1&user=x&password=secret");
      ADD_FAILURE() << "connected to nothing";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("cannot connect"), std::string::npos) << e.what();
    }
    EXPECT_EQ(store::redact_url("postgresql://me:secret@db.example/results"), "postgresql://me:***@db.example/results");
  }
}

TEST_P(StoreTest, AStoreOfAnotherSchemaVersionIsRefused) {
  const auto e1 = synthetic_experiment(tmp.path(), "v", a, 10, seed);
  { Store s(fresh.url()); s.add({store::read_experiment_folder(e1)}); }
  fresh.exec("UPDATE hetbench_store SET value = '99' WHERE key = 'schema_version'");
  try {
    Store s(fresh.url());
    ADD_FAILURE() << "a newer schema was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99, this hetbench reads version 1: update hetbench"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(fresh.exec("SELECT count(*) FROM points"), "10");
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace hetbench::test

namespace hetbench::test {

// Two processes that create one new SQLite store at once both get it (each opening retries
// where SQLite refuses a lock upgrade past its busy handler), and the file is one store.
TEST(SqliteStore, TwoProcessesCreatingOneStoreBothOpenIt) {
  TempDir tmp;
  for (int round = 0; round < 12; ++round) {
    const auto path = (tmp.path() / fmt::format("s{}.db", round)).string();
    std::vector<pid_t> kids;
    for (int proc = 0; proc < 2; ++proc) {
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        int code = 0;
        try {
          Store s(path);
        } catch (const std::exception& e) {
          fprintf(stderr, "round %d, child %d: %s\n", round, proc, e.what());
          code = 1;
        }
        _exit(code);
      }
      kids.push_back(pid);
    }
    for (const auto pid : kids) {
      int status = 0;
      waitpid(pid, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "round " << round << ": " << status;
    }
    EXPECT_NO_THROW(Store{path}) << path;
  }
}

}  // namespace hetbench::test
