// `hetbench store` as users run it, on both backends, and the Python reader (Debian's
// /usr/bin/python3 with pandas; psycopg2 for PostgreSQL) on a store the test filled.
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <fmt/ranges.h>

#include "store_fixture.hpp"

namespace hetbench::test {

namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

TEST_P(StoreTest, CommandsAddQueryExportImportGet) {
  const auto e1 = synthetic_experiment(tmp.path() / "x", "cli1", a, 90, seed);
  const auto e2 = synthetic_experiment(tmp.path() / "x", "cli2", b, 70, seed + 1);
  const auto st = " --store " + quoted(fresh.url());
  auto r = run_hetbench("store add" + st + " " + e1.string() + " " + e2.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("added 2 experiments (160 points)"), std::string::npos) << r.output;
  r = run_hetbench("store add" + st + " " + e1.string());
  EXPECT_NE(r.output.find("added 0 experiments (0 points)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 were stored already"), std::string::npos) << r.output;

  std::size_t gemm_h200 = 0;
  for (const auto& rec : records_of(e1)) gemm_h200 += rec["op"] == "gemm" && rec["device_name"] == "NVIDIA H200";
  r = run_hetbench("store query" + st + " --op gemm --device 'NVIDIA H200' --format csv");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(fmt::format("hetbench: {} points", gemm_h200)), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("experiment,host,point,op,variant"), std::string::npos);
  // JSON: one object per point, the same count.
  const auto json_out = tmp.path() / "q.json";
  ASSERT_EQ(std::system((std::string(HETBENCH_BINARY) + " store query" + st + " --op gemm --device 'NVIDIA H200' --format json > " +
                         json_out.string() + " 2>/dev/null").c_str()), 0);
  const auto j = nlohmann::json::parse(file_text(json_out));
  ASSERT_EQ(j.size(), gemm_h200);
  EXPECT_EQ(j[0]["host"], "alpha");
  EXPECT_EQ(j[0]["op"], "gemm");
  // CSV's numbers read back as the stored doubles, as JSON's do: the first row's median.
  {
    const auto csv_out = tmp.path() / "q.csv";
    ASSERT_EQ(std::system((std::string(HETBENCH_BINARY) + " store query" + st +
                           " --op gemm --device 'NVIDIA H200' --format csv > " + csv_out.string() + " 2>/dev/null")
                              .c_str()),
              0);
    const auto text = file_text(csv_out);
    const auto row = text.substr(text.find('\n') + 1, text.find('\n', text.find('\n') + 1) - text.find('\n') - 1);
    std::vector<std::string> cells;
    for (std::size_t at = 0;;) {
      const auto comma = row.find(',', at);
      cells.push_back(row.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    ASSERT_EQ(cells.size(), 17U) << row;
    ASSERT_FALSE(j[0]["median_s"].is_null());
    EXPECT_EQ(std::strtod(cells[14].c_str(), nullptr), j[0]["median_s"].get<double>()) << row;
  }
  r = run_hetbench("store query" + st + " --op gemm --format table");
  EXPECT_NE(r.output.find("median_s"), std::string::npos);
  EXPECT_NE(r.output.find("params"), std::string::npos) << r.output;
  // Sizes as run takes them (expressions); a bad one is its error alone, no header before it.
  const auto all = run_hetbench("store query" + st + " --op gemm --format csv");
  r = run_hetbench("store query" + st + " --op gemm --size n=1e0..2^40 --format csv");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, all.output);
  r = run_hetbench("store query" + st + " --size n=lots");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--size 'n=lots'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("median_s"), std::string::npos) << r.output;
  r = run_hetbench("store list" + st);
  EXPECT_NE(r.output.find("cli1"), std::string::npos) << r.output;

  const auto bundle = tmp.path() / "all.jsonl.gz";
  r = run_hetbench("store export" + st + " --bundle " + bundle.string());
  ASSERT_EQ(r.status, 0) << r.output;
  FreshStore other(GetParam() == "sqlite" ? "postgres" : "sqlite");  // across backends
  const auto so = " --store " + quoted(other.url());
  r = run_hetbench("store import" + so + " " + bundle.string() + " " + bundle.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("imported 2 experiments (160 points)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("imported 0 experiments (0 points)"), std::string::npos) << r.output;
  r = run_hetbench("store get" + so + " 1 2 -o " + (tmp.path() / "back").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(file_text(tmp.path() / "back" / e2.filename() / "results.csv"), file_text(e2 / "results.csv"));
  // compare takes stored experiments beside folders: store:1 is e1, so every pair is one
  // point against itself; a reference to nothing is bad input.
  r = run_hetbench("compare" + so + " store:1 " + e1.string() + " --format csv");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(e1.filename().string() + ",dot,"), std::string::npos) << r.output;  // a pair per point
  EXPECT_EQ(r.output.find("slower"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("faster"), std::string::npos) << r.output;
  r = run_hetbench("compare" + so + " store:1 store:99");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("no experiment '99'"), std::string::npos) << r.output;

  // Bad input: exit 2 and one line naming what is wrong.
  r = run_hetbench("store query" + st + " --format xml");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--format 'xml'"), std::string::npos) << r.output;
  r = run_hetbench("store get" + st + " 99 -o " + tmp.str());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("no experiment '99'"), std::string::npos) << r.output;
  write_text(e2 / "results.jsonl", file_text(e2 / "results.jsonl").substr(0, 500));
  r = run_hetbench("store add" + st + " " + e1.string() + " " + e2.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find((e2 / "results.jsonl").string() + "' line 1: truncated record"), std::string::npos) << r.output;
  r = run_hetbench("store list --store 'postgresql:///x?host=/nonexistent&port=1'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("cannot connect"), std::string::npos) << r.output;
}

TEST_P(StoreTest, PythonReadsTheStoreAsADataFrame) {
  const auto e1 = synthetic_experiment(tmp.path(), "py1", a, 120, seed);
  const auto e2 = synthetic_experiment(tmp.path(), "py2", b, 100, seed + 1);
  store::Store s(fresh.url());
  s.add({store::read_experiment_folder(e1), store::read_experiment_folder(e2)});
  // The same filters through C++ and Python give the same points and figures.
  store::Filter f;
  f.op = "gemm";
  f.precision = "S";
  f.sizes = {"m=128..1024"};
  std::vector<KeptRow> want;
  s.query(f, [&](const store::QueryRow& r) { want.emplace_back(r); });
  ASSERT_GT(want.size(), 3u);
  double sum = 0;
  std::set<int> ms;
  for (const auto& r : want) {
    sum += *r.gflops;
    ms.insert(std::atoi(r.sizes.substr(r.sizes.find("m=") + 2).c_str()));
  }
  const auto script = tmp.path() / "read.py";
  write_text(script, fmt::format(R"(import sys
sys.path.insert(0, '{0}')
from hetbench.store import read_store, StoreError
df = read_store(sys.argv[1], op="gemm", precision="S", size="m=128..1024")
print("rows", len(df))
print("sum %r" % float(df["gflops"].sum()))
print("sizes", sorted(set(df["size_m"])))
print("hosts", sorted(set(df["host"])))
full = read_store(sys.argv[1], records=True, experiment=[1])
print("records", len(full), full["record"][0]["op"] == full["op"][0])
try:
    read_store(sys.argv[1], colour="red")
except StoreError as e:
    print("error", e)
)",
                                 source_dir() + "/python"));
  TempDir out;
  const auto cmd = fmt::format("/usr/bin/python3 {} {} > {}/out 2>&1", script.string(), quoted(fresh.url()), out.str());
  const int rc = std::system(cmd.c_str());
  const auto text = file_text(out.path() / "out");
  ASSERT_EQ(rc, 0) << text;
  EXPECT_NE(text.find(fmt::format("rows {}\n", want.size())), std::string::npos) << text;
  const auto at = text.find("sum ");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NEAR(std::strtod(text.c_str() + at + 4, nullptr), sum, 1e-9 * sum) << text;
  EXPECT_NE(text.find(fmt::format("sizes [{}]", fmt::join(ms, ", "))), std::string::npos) << text;
  EXPECT_NE(text.find("hosts ['alpha', 'beta']"), std::string::npos) << text;
  EXPECT_NE(text.find("records 120 True"), std::string::npos) << text;
  EXPECT_NE(text.find("error unknown filter(s) ['colour']"), std::string::npos) << text;
}

// The query table shows a point's sizes and parameters as run's tables do: "n=1000" in S
// (not the double-word storage's n=1000,soa=0) and "K=V,K=V" (not the stored ';' form).
TEST(StoreQuery, TableShowsSizesAndParamsAsRunShowsThem) {
  TempDir d;
  auto r = run_hetbench("run dot --device host --variant loop --precision S --size 1000 --reps 2 --out " +
                        (d.path() / "x").string() + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_hetbench("run gemm --device host --variant split_tf32 --precision S --size 33 --reps 2 --out " +
                   (d.path() / "x").string() + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto st = " --store " + quoted((d.path() / "r.db").string());
  for (const auto& e : fs::directory_iterator(d.path() / "x")) {
    r = run_hetbench("store add" + st + " " + e.path().string());
    ASSERT_EQ(r.status, 0) << r.output;
  }
  r = run_hetbench("store query" + st + " --format table");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, testing::ContainsRegex(" n=1000 +- +ok"));
  EXPECT_THAT(r.output, testing::Not(testing::HasSubstr("soa")));
  EXPECT_THAT(r.output, testing::HasSubstr(" k=33,m=33,n=33,ta=0,tb=0 "));
  EXPECT_THAT(r.output, testing::ContainsRegex("FULL=[01],SLICES=[0-9]+,THREADS=[0-9]+ "));
}

}  // namespace hetbench::test
