// hetbench replay on the host and PoCL: DOT, GEMM and SpMV (a generator and a Matrix
// Market file) replayed point for point, with the same identity and validation, and
// judged by compare (the mechanism: a noisy CPU promises no `same`); the differences
// from a hand-edited context, --strict refusing them, and a matrix file that changed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compare/folder.hpp"
#include "io/matrix_market.hpp"
#include "test_util.hpp"
#include "util/json_file.hpp"

using namespace hetbench;
using testing::HasSubstr;
using testing::Not;

namespace {

std::filesystem::path sole_experiment_in(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> found;
  for (const auto& e : std::filesystem::directory_iterator(root))
    if (std::filesystem::exists(e.path() / "experiment.json")) found.push_back(e.path());
  EXPECT_EQ(found.size(), 1u) << root;
  return found.empty() ? root : found[0];
}

// A seeded random sparse matrix as a Matrix Market file.
void write_random_mtx(const std::string& path, std::uint64_t seed, int rows) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> col(0, rows - 1);
  CsrMatrix m;
  m.rows = m.cols = rows;
  m.rowptr.push_back(0);
  for (int r = 0; r < rows; ++r) {
    std::vector<int> cols{r, col(rng), col(rng)};
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (int c : cols) {
      m.colidx.push_back(c);
      m.values.push_back(u(rng));
    }
    m.rowptr.push_back(static_cast<int>(m.colidx.size()));
  }
  write_matrix_market(m, path);
}

const char* kQuick = " --precision S --reps 5 --warmup 1";

// One experiment with DOT, GEMM and SpMV on the host and PoCL, recorded by a sweep.
std::filesystem::path record(const test::TempDir& tmp, std::uint64_t seed, const std::string& mtx) {
  nlohmann::json spec = {
      {"name", "replay-test"},
      {"seed", seed},
      {"precisions", "S"},
      {"reps", 5},
      {"warmup", 1},
      {"runs",
       {{{"op", "dot"}, {"devices", "host,opencl:0:0"}, {"sizes", "4096"}, {"variants", "loop,local"}},
        {{"op", "gemm"}, {"devices", "host,opencl:0:0"}, {"sizes", "32,48"}, {"variants", "naive"}},
        {{"op", "spmv"},
         {"devices", "host,opencl:0:0"},
         {"matrices", {"gen:poisson2d:n=20", mtx}},
         {"variants", "loop,scalar"}}}}};
  const auto path = tmp.path() / "spec.json";
  test::write_text(path, spec.dump());
  const auto r = test::run_hetbench("sweep " + path.string() + " --no-db --out " + (tmp.path() / "rec").string());
  EXPECT_EQ(r.status, 0) << r.output;
  return sole_experiment_in(tmp.path() / "rec");
}

}  // namespace

TEST(Replay, ReproducesEveryPointAndJudgesIt) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  test::TempDir tmp;
  const auto mtx = (tmp.path() / "m.mtx").string();
  write_random_mtx(mtx, seed, 300);
  const auto rec_dir = record(tmp, seed, mtx);
  const auto rec = read_experiment(rec_dir);
  ASSERT_GE(rec.points.size(), 10u);
  ASSERT_TRUE(rec.experiment.contains("variant_hashes"));
  bool hashed = false;
  for (const auto& p : rec.points)
    if (p["sizes"].value("input", "") == mtx) hashed |= p["features"].value("matrix_sha256", "").size() == 64;
  EXPECT_TRUE(hashed) << "the matrix file's SHA-256 is recorded";

  auto r =
      test::run_hetbench("replay " + rec_dir.string() + " --out " + (tmp.path() / "again").string() + " --format json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the context is the one recorded"));
  const auto rep = read_experiment(sole_experiment_in(tmp.path() / "again"));
  ASSERT_EQ(rep.points.size(), rec.points.size());
  EXPECT_EQ(rep.experiment["spec"]["replay_of"]["experiment"],
            std::filesystem::absolute(rec_dir).lexically_normal().string());
  EXPECT_EQ(rep.experiment["seed"], rec.experiment["seed"]);
  // The same points (a replay keeps the plan's order here), measured alike and validated alike.
  for (std::size_t i = 0; i < rec.points.size(); ++i) {
    const auto &a = rec.points[i], &b = rep.points[i];
    for (const char* k : {"op", "variant_id", "device", "precision", "sizes", "params", "seed", "status", "flops"})
      EXPECT_EQ(a.value(k, nlohmann::json()), b.value(k, nlohmann::json())) << k << " of point " << i;
    EXPECT_EQ(a["validation"]["passed"], b["validation"]["passed"]) << i;
    EXPECT_EQ(a["timing"]["reps"], b["timing"]["reps"]) << i;
    EXPECT_EQ(a["timing"]["warmup"], b["timing"]["warmup"]) << i;
    EXPECT_EQ(a["timing"]["stopping"], b["timing"]["stopping"]) << i;
    EXPECT_EQ(a.value("features", nlohmann::json()), b.value("features", nlohmann::json())) << i;
  }
  // compare judged every pair: a verdict from the samples, none invalid.
  const auto json_start = r.output.find("{\n");
  ASSERT_NE(json_start, std::string::npos) << r.output;
  const auto j = nlohmann::json::parse(r.output.substr(json_start, r.output.rfind('}') - json_start + 1));
  ASSERT_EQ(j["pairs"].size(), rec.points.size());
  EXPECT_FALSE(j["counts"].contains("invalid")) << j["counts"].dump();
  for (const auto& p : j["pairs"]) EXPECT_TRUE(p.contains("ratio")) << p.dump();

  // One point only.
  r = test::run_hetbench("replay " + rec_dir.string() + " --point 3 --out " + (tmp.path() / "one").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto one = read_experiment(sole_experiment_in(tmp.path() / "one"));
  ASSERT_EQ(one.points.size(), 1u);
  EXPECT_EQ(one.points[0]["variant_id"], rec.points[3]["variant_id"]);
  EXPECT_EQ(one.points[0]["sizes"], rec.points[3]["sizes"]);
}

TEST(Replay, StatesContextDifferencesAndStrictRefuses) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  test::TempDir tmp;
  const auto out = (tmp.path() / "rec").string();
  auto r = test::run_hetbench("run dot --device host,opencl:0:0 --variant loop,local --size 2048 --seed " +
                              std::to_string(seed) + kQuick + " --no-db --out " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dir = sole_experiment_in(out);
  // Hand edits: another commit and compiler, another driver, another kernel source.
  auto e = read_json_file((dir / "experiment.json").string());
  e["git_commit"] = "0123456789ab";
  e["compiler"] = "GNU 9.9.9";
  for (auto& d : e["devices"])
    if (d["id"] == "opencl:0:0") d["driver"] = "0.0-edited";
  e["variant_hashes"]["opencl/dot/local"] = "feedfacefeedface";
  test::write_text(dir / "experiment.json", e.dump());

  r = test::run_hetbench("replay " + dir.string() + " --out " + (tmp.path() / "again").string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("git_commit: recorded 0123456789ab, now"));
  EXPECT_THAT(r.output, HasSubstr("compiler: recorded GNU 9.9.9, now"));
  EXPECT_THAT(r.output, HasSubstr("device opencl:0:0 driver: recorded 0.0-edited, now"));
  EXPECT_THAT(r.output, HasSubstr("variant opencl/dot/local code: recorded feedfacefeedface, now"));
  EXPECT_THAT(r.output, Not(HasSubstr("variant host/dot/loop code")));

  r = test::run_hetbench("replay " + dir.string() + " --strict --out " + (tmp.path() / "strict").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--strict: the context differs"));
  EXPECT_THAT(r.output, HasSubstr("git_commit"));
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "strict")) << "nothing runs when --strict refuses";
}

TEST(Replay, RefusesWhatCannotBeReplayedExactly) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  test::TempDir tmp;
  const auto mtx = (tmp.path() / "m.mtx").string();
  write_random_mtx(mtx, seed, 200);
  const auto out = (tmp.path() / "rec").string();
  auto r =
      test::run_hetbench("run spmv --device host --variant loop --matrix " + mtx + kQuick + " --no-db --out " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dir = sole_experiment_in(out).string();

  r = test::run_hetbench("replay " + dir + " --point 7");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--point 7: '" + dir + "' has points 0 to 0"));

  write_random_mtx(mtx, seed + 1, 200);  // the same path, other content
  r = test::run_hetbench("replay " + dir + " --out " + (tmp.path() / "again").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("point 0 cannot be replayed exactly: '" + mtx + "' changed since it was recorded"));

  std::filesystem::remove(mtx);
  r = test::run_hetbench("replay " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("its matrix file '" + mtx + "' is not here"));

  r = test::run_hetbench("replay " + tmp.str());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("is not an experiment folder"));
}

// replay store:REF replays a stored experiment and names it in replay_of; a file token with
// a storage suffix (m.mtx@soa) is checked as its file.
TEST(Replay, StoredExperimentsAndStorageSuffixes) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  test::TempDir tmp;
  const auto mtx = (tmp.path() / "m.mtx").string();
  write_random_mtx(mtx, seed, 200);
  const auto out = (tmp.path() / "rec").string();
  auto r = test::run_hetbench("run spmv --device host --variant loop --matrix " + mtx + "@soa" + kQuick +
                              " --no-db --out " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dir = sole_experiment_in(out).string();
  r = test::run_hetbench("replay " + dir + " --out " + (tmp.path() / "again").string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the context is the one recorded"));

  const auto store = (tmp.path() / "store.db").string();
  r = test::run_hetbench("store add --store " + store + " " + dir);
  ASSERT_EQ(r.status, 0) << r.output;
  r = test::run_hetbench("replay store:1 --store " + store + " --out " + (tmp.path() / "stored").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto rep = read_experiment(sole_experiment_in(tmp.path() / "stored"));
  const auto& of = rep.experiment["spec"]["replay_of"];
  EXPECT_EQ(of["experiment"], "store:1");
  EXPECT_EQ(of["stored"]["id"], 1);
  EXPECT_EQ(of["stored"]["store"], store);
  EXPECT_EQ(of["stored"]["hash"].get<std::string>().size(), 64u);
  ASSERT_EQ(rep.points.size(), 1u);
  EXPECT_EQ(rep.points[0]["sizes"]["input"], mtx + "@soa");

  write_random_mtx(mtx, seed + 1, 200);  // the suffixed token's file changed: refused
  r = test::run_hetbench("replay " + dir + " --out " + (tmp.path() / "changed").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("'" + mtx + "' changed since it was recorded"));
}
