// hetbench db ship: a tuning campaign spec run into a fresh database and written out as a
// shipped file that the shipped layer reads; the rule that keeps an entry (it beats the
// op's own choice beyond both intervals); bad specs.
#include <fstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"
#include "tune/ship.hpp"
#include "tuning/db.hpp"
#include "tuning/shipped.hpp"
#include "util/json_file.hpp"

using namespace hetbench;
using namespace hetbench::test;
using testing::HasSubstr;

namespace {

// A point record with a rate (GB/s: AXPY) and the interval of its median time.
nlohmann::json point(double gbs, double median, double lo, double hi, nlohmann::json params) {
  return {{"op", "axpy"},      {"status", "ok"}, {"gbs", gbs}, {"params", std::move(params)},
          {"timing", {{"seconds", {{"median", median}, {"ci95_lo", lo}, {"ci95_hi", hi}}}}}};
}

}  // namespace

// The best found ships where it beats the op's own choice beyond both intervals: not
// where it is that choice, nor where the intervals overlap.
TEST(Ship, AnEntryShipsOnlyWhereItBeatsTheModelBeyondTheNoise) {
  const auto model = point(100, 1.0, 0.98, 1.02, {{"WG", 64}});
  std::string why;
  EXPECT_TRUE(tune::beats_the_model(point(120, 0.833, 0.83, 0.84, {{"WG", 128}}), model, why)) << why;
  EXPECT_FALSE(tune::beats_the_model(point(101, 0.99, 0.95, 1.03, {{"WG", 128}}), model, why));
  EXPECT_THAT(why, HasSubstr("the first start 100 GB/s"));
  EXPECT_FALSE(tune::beats_the_model(point(100, 1.0, 0.98, 1.02, {{"WG", 64}}), model, why));
  EXPECT_THAT(why, HasSubstr("is the tuning's first start"));
}

// A small campaign on PoCL: every shape of the shape file tuned once (a repeated token
// once), the database and experiments in the folder given, and the file written where the
// spec says, relative to the spec, read back by the shipped layer with current hashes.
TEST(Ship, ACampaignSpecBecomesAShippedFileTheLayerReads) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device opencl:0:0";
  TempDir tmp;
  std::filesystem::create_directories(tmp.path() / "spec");
  write_text(tmp.path() / "spec" / "shapes.txt", "# AXPY sizes\n4099\n2^14  # the second\n4099\n");
  const nlohmann::json spec = {
      {"about", "test campaign"},
      {"devices", "opencl:0:0"},
      {"output", "../tuned/pocl.json"},
      {"measure", {{"reps", 3}, {"warmup", 1}, {"rounds", 1}}},
      {"tasks",
       {{{"op", "axpy"}, {"variants", {"vec"}}, {"precisions", {"S"}}, {"shapes", {"shapes.txt"}},
         {"params", {{"WG", "64,128"}}}, {"strategy", "random"}, {"budget", "3"}}}}};
  write_text(tmp.path() / "spec" / "c.json", spec.dump(2));
  const auto r = run_hetbench(fmt::format("db ship {} --out {} --seed 3", (tmp.path() / "spec" / "c.json").string(),
                                          (tmp.path() / "work").string()),
                              "HETBENCH_DB=none");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("2 shape(s) tuned, 0 left out by the deadline"));
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "work" / "campaign.db"));
  // Two entries, each shipped or named as not (the second shape starts from the first's
  // entry, and ships only where it found better beyond the noise).
  const auto shipped = tuning::read_shipped((tmp.path() / "tuned").string());
  std::size_t not_shipped = 0;
  for (auto at = r.output.find("not shipped: opencl/axpy/vec"); at != std::string::npos;
       at = r.output.find("not shipped: opencl/axpy/vec", at + 1))
    ++not_shipped;
  ASSERT_GE(shipped.size(), 1u) << r.output;  // the first shape has no start to beat
  EXPECT_EQ(shipped.size() + not_shipped, 2u) << r.output;
  EXPECT_THAT(r.output, HasSubstr(fmt::format("{} of 2 entries shipped", shipped.size())));
  for (const auto& s : shipped) {
    EXPECT_EQ(s.entry.variant_id, "opencl/axpy/vec");
    EXPECT_TRUE(s.entry.params.count("WG"));
    for (const auto& v : all_variants())
      if (v->id() == s.entry.variant_id) EXPECT_EQ(s.entry.variant_hash, tuning::variant_hash(*v));
  }
  // A deadline already past tunes nothing and says which shapes it left out.
  const auto late = run_hetbench(fmt::format("db ship {} --out {} --deadline 1e-9 --seed 3",
                                             (tmp.path() / "spec" / "c.json").string(), (tmp.path() / "w2").string()),
                                 "HETBENCH_DB=none");
  EXPECT_EQ(late.status, 0) << late.output;
  EXPECT_THAT(late.output, HasSubstr("deadline"));
  EXPECT_THAT(late.output, HasSubstr("not tuned: axpy vec 2^14"));
}

// Bad specs: one error naming the file and the key.
TEST(Ship, BadCampaignSpecsAreOneErrorNamingTheKey) {
  TempDir tmp;
  write_text(tmp.path() / "s.txt", "1000\n");
  const nlohmann::json good = {
      {"devices", "host"},
      {"output", "out.json"},
      {"tasks", {{{"op", "dot"}, {"variants", {"omp"}}, {"shapes", {"s.txt"}}, {"budget", "2"}}}}};
  auto read = [&](const nlohmann::json& j) {
    write_text(tmp.path() / "c.json", j.dump());
    return tune::read_ship_campaign(tmp.path() / "c.json");
  };
  const auto c = read(good);
  ASSERT_EQ(c.tasks.size(), 1u);
  EXPECT_EQ(c.tasks[0].shapes, std::vector<std::string>{"1000"});
  EXPECT_EQ(c.output, tmp.path() / "out.json");
  auto expect_error = [&](nlohmann::json j, const std::string& what) {
    try {
      read(j);
      ADD_FAILURE() << "taken: " << j.dump();
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("c.json"));
      EXPECT_THAT(e.what(), HasSubstr(what));
    }
  };
  auto j = good;
  j["outptu"] = "x";
  expect_error(j, "'outptu': unknown key");
  j = good;
  j["tasks"][0].erase("budget");
  expect_error(j, "tasks[0]: 'budget': missing");
  j = good;
  j["tasks"][0]["shapes"] = {"nowhere.txt"};
  expect_error(j, "cannot read the shape file");
  j = good;
  j["tasks"][0]["strategy"] = "guess";
  expect_error(j, "guess");
  j = good;
  j["tasks"][0]["reps"] = 0;
  expect_error(j, "tasks[0]");
  j = good;
  j.erase("output");
  expect_error(j, "'output': missing");
}
