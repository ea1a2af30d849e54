// The tuning database: keys, the better rate winning, fallback levels, problem classes,
// foreign and corrupt files, and two processes writing at once.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <random>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetbench/error.hpp"
#include "test_util.hpp"
#include "tuning/db.hpp"

namespace hetbench {
namespace {

using testing::HasSubstr;
using namespace tuning;

// No test, nor a hetbench it starts, reads the user's own database: tests that want one
// give its path.
const bool no_home_db = [] { return setenv("HETBENCH_DB", "none", 1) == 0; }();

DeviceIdentity device(std::string name = "H200", std::string arch = "sm_90", std::string vendor = "NVIDIA") {
  DeviceIdentity d;
  d.backend = BackendKind::Cuda;
  d.name = std::move(name);
  d.vendor = std::move(vendor);
  d.driver = "580";
  d.version = "9.0";
  d.arch = std::move(arch);
  return d;
}

TuningEntry entry(long long n, double rate, DeviceIdentity dev = device(), std::string variant = "cuda/axpy/vec16") {
  TuningEntry e;
  e.device = std::move(dev);
  e.variant_id = std::move(variant);
  e.variant_hash = "h1";
  e.precision = Precision::D;
  e.problem = classify_features("axpy", {{"n", n}});
  e.params = {{"VW", 4}, {"WG", 256}};
  e.rate = rate;
  e.rate_lo = rate * 0.99;
  e.rate_hi = rate * 1.01;
  e.unit = "GB/s";
  e.experiment = "/tmp/x";
  e.point = 3;
  e.strategy = "exhaustive";
  e.evaluations = 12;
  return e;
}

LookupQuery query(long long n, DeviceIdentity dev = device()) {
  return LookupQuery{std::move(dev), {{"cuda/axpy/vec16", "h1"}}, Precision::D, "", classify_features("axpy", {{"n", n}})};
}

TEST(TuningDb, PutKeepsTheBetterRateAndRoundTrips) {
  test::TempDir tmp;
  TuningDb db(tmp.path() / "t.db");
  auto [id, stored] = db.put(entry(1 << 20, 100));
  EXPECT_TRUE(stored);
  EXPECT_FALSE(db.put(entry(1 << 20, 90)).second);  // same key, slower: kept
  auto [id2, better] = db.put(entry((1 << 20) + 1000, 120));  // same class, faster: replaces
  EXPECT_TRUE(better);
  ASSERT_EQ(db.list().size(), 1u);
  auto e = db.get(id2);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rate, 120);
  EXPECT_EQ(e->params.at("VW"), 4);
  EXPECT_EQ(e->strategy, "exhaustive");
  EXPECT_EQ(e->evaluations, 12);
  EXPECT_FALSE(e->timestamp.empty());
  EXPECT_FALSE(db.get(id));
  // Another precision or storage or hash is another key.
  auto f = entry(1 << 20, 50);
  f.precision = Precision::S;
  EXPECT_TRUE(db.put(f).second);
  EXPECT_EQ(db.list().size(), 2u);
}

TEST(TuningDb, LookupFallsBackDeviceArchitectureVendor) {
  test::TempDir tmp;
  TuningDb db(tmp.path() / "t.db");
  db.put(entry(1 << 23, 10, device("H100", "sm_90")));
  db.put(entry(1 << 24, 20, device("A100", "sm_80")));
  auto hit = db.lookup(query(1 << 24));  // H200: no entry of its own
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->level, Fallback::SameArch);  // the H100, although the A100's class is nearer
  EXPECT_EQ(hit->entry.device.name, "H100");
  EXPECT_DOUBLE_EQ(hit->distance, 1);
  db.put(entry(1 << 10, 30));  // one of its own, but too far to say anything about 2^24
  hit = db.lookup(query(1 << 24));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->level, Fallback::SameArch);
  db.put(entry(1 << 22, 30));  // one of its own within reach (2 for vectors)
  hit = db.lookup(query(1 << 24));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->level, Fallback::SameDevice);
  EXPECT_DOUBLE_EQ(hit->distance, 2);
  EXPECT_FALSE(db.lookup(query(1 << 16)));  // only 2^10 within 2^14 .. 2^18: nothing
  // Only the vendor in common.
  hit = db.lookup(query(1 << 24, device("B200", "sm_100")));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->level, Fallback::SameVendor);
  EXPECT_EQ(hit->entry.device.name, "A100");  // nearest class among the vendor's
  EXPECT_FALSE(db.lookup(query(1 << 24, device("MI300", "gfx942", "AMD"))));
  // A changed kernel (another hash) finds nothing.
  auto q = query(1 << 24);
  q.variants[0].hash = "h2";
  EXPECT_FALSE(db.lookup(q));
}

TEST(ProblemClass, ShapesBucketsAndDistances) {
  auto g = [](long long m, long long n, long long k) {
    return classify_features("gemm", {{"m", m}, {"n", n}, {"k", k}});
  };
  EXPECT_EQ(g(4096, 4096, 4096).label, "m 2^12 n 2^12 k 2^12 square");
  EXPECT_EQ(g(3001, 5003, 997).label, "m 2^11.5 n 2^12.5 k 2^10 flat odd");
  EXPECT_EQ(g(1024, 8192, 1024).label, "m 2^10 n 2^13 k 2^10 wide");
  EXPECT_EQ(g(8192, 1024, 1024).label, "m 2^13 n 2^10 k 2^10 tall");
  EXPECT_EQ(g(4096, 4096, 256).label, "m 2^12 n 2^12 k 2^8 flat");
  EXPECT_EQ(g(256, 256, 65536).label, "m 2^8 n 2^8 k 2^16 skinny");
  // Shapes one campaign tunes apart keep apart keys.
  EXPECT_NE(g(768, 768, 768).label, g(1024, 1024, 1024).label);
  EXPECT_NE(g(256, 256, 16384).label, g(512, 512, 8192).label);
  EXPECT_DOUBLE_EQ(distance(g(4096, 4096, 4096), g(8192, 4096, 4096)), 1);
  EXPECT_DOUBLE_EQ(distance(g(4096, 4096, 4096), g(4096, 4096, 4000)), std::sqrt(std::pow(std::log2(4096.0 / 4000), 2) + 1));
  auto s = [](double rows, double mean, double max, double sd) {
    return classify_features("spmv", {{"rows", rows}, {"row_mean", mean}, {"row_max", max}, {"row_std", sd}});
  };
  // Twice the rows counts a quarter; twice the mean row length counts fully.
  EXPECT_DOUBLE_EQ(distance(s(1 << 20, 8, 8, 0), s(1 << 21, 8, 8, 0)), 0.25);
  EXPECT_DOUBLE_EQ(distance(s(1 << 20, 8, 8, 0), s(1 << 20, 16, 16, 0)), 1);
  EXPECT_EQ(s(1, 1, 1, 0).reach, 1.0);
  EXPECT_EQ(g(1, 1, 1).reach, 2.0);
  EXPECT_EQ(classify_features("no_such_op", {{"n", 8}}).reach, 2.0);  // an op this build lacks: its dimensions
  EXPECT_EQ(classify_features("no_such_op", {{"n", 8}}).label, "n=2^3");
  EXPECT_GT(distance(s(1 << 20, 8, 4096, 20), s(1 << 20, 8, 9, 1)), 8);
  // Rows of random columns are a class apart from a band of the same rows, beyond reach;
  // features without the columns' reach (entries written before the flag) are a band's.
  auto spread = [&](double bandwidth) {
    auto f = s(1 << 20, 8, 8, 0).features;
    f["cols"] = 1 << 20;
    f["bandwidth"] = bandwidth;
    return classify_features("spmv", f);
  };
  EXPECT_EQ(spread(1000000).label, "rows 2^20 mean 2^3 max/mean 2^0 cv 0.0 scattered");
  EXPECT_EQ(spread(1000).label, "rows 2^20 mean 2^3 max/mean 2^0 cv 0.0");
  EXPECT_GT(distance(spread(1000000), spread(1000)), spread(1000).reach);
  EXPECT_DOUBLE_EQ(distance(spread(1000), s(1 << 20, 8, 8, 0)), 0);
  EXPECT_EQ(spread(1000000).features.value("bandwidth", 0.0), 1000000);  // stored with the entry
  EXPECT_THAT([&] { classify_features("spmv", {{"rows", 4}}); }, testing::ThrowsMessage<Error>(HasSubstr("row_mean")));
  EXPECT_TRUE(std::isinf(distance(g(1, 1, 1), s(1, 1, 1, 0))));
}

TEST(TuningDb, ForeignAndCorruptFilesAreRefusedUntouched) {
  test::TempDir tmp;
  auto text = tmp.path() / "notes.txt";
  test::write_text(text, "not a database at all, but a file of notes with more than sixteen bytes\n");
  EXPECT_THAT([&] { TuningDb db(text); },
              testing::ThrowsMessage<Error>(HasSubstr(text.string() + " is not a hetbench tuning database")));
  auto foreign = tmp.path() / "other.sqlite";
  ASSERT_EQ(std::system(("sqlite3 " + foreign.string() + " 'CREATE TABLE t(x); INSERT INTO t VALUES (1);'").c_str()), 0);
  const auto before = std::filesystem::file_size(foreign);
  const auto mtime = std::filesystem::last_write_time(foreign);
  EXPECT_THAT([&] { TuningDb db(foreign); },
              testing::ThrowsMessage<Error>(HasSubstr(foreign.string() + " is an SQLite database but not a hetbench")));
  EXPECT_EQ(std::filesystem::file_size(foreign), before);
  EXPECT_EQ(std::filesystem::last_write_time(foreign), mtime);
  EXPECT_FALSE(std::filesystem::exists(foreign.string() + "-wal"));
  // A tuning database whose pages were overwritten: an error naming it, not a crash.
  auto bad = tmp.path() / "bad.db";
  {
    TuningDb db(bad);
    for (int i = 0; i < 50; ++i) db.put(entry(1 << (i % 30), i + 1.0, device(fmt::format("dev{}", i))));
  }
  std::filesystem::remove(bad.string() + "-wal");
  std::filesystem::remove(bad.string() + "-shm");
  {
    std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);
    std::mt19937 rng(test::fresh_seed());
    for (int i = 0; i < 4096; ++i) f.put(static_cast<char>(rng()));
  }
  EXPECT_THAT(
      [&] {
        TuningDb db(bad);
        db.list();
      },
      testing::ThrowsMessage<Error>(HasSubstr(bad.string())));
}

TEST(TuningDb, MissingFolderIsCreated) {
  test::TempDir tmp;
  auto p = tmp.path() / "a" / "b" / "tuning.db";
  TuningDb db(p);
  db.put(entry(1 << 20, 1));
  EXPECT_TRUE(std::filesystem::exists(p));
  EXPECT_EQ(TuningDb::open_if_exists(tmp.path() / "none.db"), nullptr);
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "none.db"));
}

TEST(TuningDb, DefaultPathFollowsTheEnvironment) {
  EXPECT_EQ(resolve_db_path("none"), "");
  EXPECT_EQ(resolve_db_path("/x/y.db"), "/x/y.db");
  EXPECT_EQ(resolve_db_path(""), "");  // HETBENCH_DB=none in the tests
  const std::string saved = std::getenv("HETBENCH_DB");
  unsetenv("HETBENCH_DB");
  setenv("XDG_DATA_HOME", "/data", 1);
  EXPECT_EQ(default_db_path(), "/data/hetbench/tuning.db");
  setenv("HETBENCH_DB", saved.c_str(), 1);
}

// Two processes each write many entries at once; every entry arrives.
TEST(TuningDb, TwoProcessesLoseNothing) {
  test::TempDir tmp;
  const auto path = tmp.path() / "shared.db";
  constexpr int kEach = 200;
  std::vector<pid_t> kids;
  for (int proc = 0; proc < 2; ++proc) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        TuningDb db(path);  // both may create it
        for (int i = 0; i < kEach; ++i)
          if (!db.put(entry(1 << (i % 28), 1, device(fmt::format("p{}-{}", proc, i)))).second) code = 2;
      } catch (const std::exception& e) {
        fprintf(stderr, "child %d: %s\n", proc, e.what());
        code = 1;
      }
      _exit(code);
    }
    kids.push_back(pid);
  }
  for (auto pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  TuningDb db(path);
  EXPECT_EQ(db.list().size(), 2u * kEach);
}

// The hash that keys entries to a kernel: a new default, doc or description keeps it (the
// tuned parameters still measure the same thing); parameter values, constraints, launch
// geometry and the source each change it.
TEST(TuningDb, VariantHashIgnoresDefaultsAndDocsOnly) {
  test::TempDir d;
  test::write_text(d.path() / "k.cl", "kernel void copy_k(uint n, global const REAL* x, global REAL* y) {}\n");
  const auto base = nlohmann::ordered_json::parse(R"J({"name": "k", "op": "copy", "source": "k.cl",
    "description": "one element per work-item", "precisions": ["S", "D"],
    "params": {"WG": {"values": [64, 128, 256], "default": 128, "doc": "work-group size"}},
    "constraints": ["WG <= max_wg"], "entry": "copy_k", "args": ["n", "x", "y"],
    "global": "roundup(n, WG)", "local": "WG"})J");
  auto hash_of = [&](const nlohmann::ordered_json& j) {
    const auto path = d.path() / "k.json";
    test::write_text(path, j.dump(2));
    return variant_hash(*parse_variant_json(j, d.path().string(), path.string()));
  };
  const std::string h = hash_of(base);
  auto edited = [&](const std::function<void(nlohmann::ordered_json&)>& edit) {
    auto j = base;
    edit(j);
    return hash_of(j);
  };
  EXPECT_EQ(edited([](auto& j) { j["params"]["WG"]["default"] = 256; }), h);
  EXPECT_EQ(edited([](auto& j) { j["params"]["WG"]["default"] = nlohmann::json::parse(R"({"S": 64, "D": 256})"); }), h);
  EXPECT_EQ(edited([](auto& j) { j["params"]["WG"]["doc"] = "threads a group"; }), h);
  EXPECT_EQ(edited([](auto& j) { j["description"] = "another sentence"; }), h);
  EXPECT_NE(edited([](auto& j) { j["params"]["WG"]["values"] = nlohmann::json::parse("[64, 128]"); }), h);
  EXPECT_NE(edited([](auto& j) { j["constraints"][0] = "WG <= max_wg && WG >= 64"; }), h);
  EXPECT_NE(edited([](auto& j) { j["global"] = "roundup(n, 2 * WG)"; }), h);
  test::write_text(d.path() / "k.cl", "kernel void copy_k(uint n, global const REAL* x, global REAL* y) { }\n");
  EXPECT_NE(hash_of(base), h);
}

}  // namespace
}  // namespace hetbench
