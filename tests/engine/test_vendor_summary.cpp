// The report's first table (engine/record/vendor_summary.hpp): per machine, device, op and
// precision, own best ÷ vendor best at each problem both ran, summarised; a bucket without a
// vendor keeps its own best rate and comes after those with one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "engine/record/vendor_summary.hpp"

namespace hetbench {
namespace {

nlohmann::json point(const std::string& op, const std::string& variant, const std::string& kind, long long n,
                     double gbs, const std::string& status = "ok") {
  return {{"op", op},          {"variant", variant}, {"variant_id", "cuda/" + op + "/" + variant},
          {"kind", kind},      {"device", "cuda:0"}, {"device_name", "GPU"},
          {"precision", "S"},  {"sizes", {{"n", n}}}, {"params", {{"WG", 256}}},
          {"status", status},  {"gbs", gbs},         {"host", "h1"}};
}

TEST(VendorSummary, OwnBestOverVendorBestPerProblem) {
  const std::vector<nlohmann::json> recs = {
      point("dot", "onepass", "kernel", 1000, 90), point("dot", "vec", "kernel", 1000, 100),  // own best 100
      point("dot", "cub", "library", 1000, 80),                                                 // 1.25
      point("dot", "onepass", "kernel", 4000, 300), point("dot", "cub", "library", 4000, 400),  // 0.75
      point("dot", "onepass", "kernel", 9000, 999, "failed"),                                   // not ok: ignored
      point("axpy", "simple", "kernel", 1000, 50)};                                             // no vendor
  const auto rows = own_vs_vendor(recs);
  ASSERT_EQ(rows.size(), 2u) << rows.dump(1);
  const auto& dot = rows[0];
  EXPECT_EQ(dot["op"], "dot");
  EXPECT_EQ(dot["problems"], 2);
  EXPECT_NEAR(dot["geomean"].get<double>(), std::sqrt(1.25 * 0.75), 1e-12);
  EXPECT_NEAR(dot["min"].get<double>(), 0.75, 1e-12);
  EXPECT_NEAR(dot["max"].get<double>(), 1.25, 1e-12);
  EXPECT_EQ(dot["min_at"], "n=4000");
  EXPECT_EQ(dot["vendor"], nlohmann::json::array({"cuda/dot/cub"}));
  EXPECT_EQ(dot["unit"], "GB/s");
  EXPECT_EQ(dot["best_own"]["rate"], 300);  // the fastest own point of the op, at any problem
  EXPECT_EQ(dot["best_own"]["problem"], "n=4000");
  EXPECT_EQ(dot["best_own"]["params"], "WG=256");
  const auto& axpy = rows[1];
  EXPECT_EQ(axpy["op"], "axpy");
  EXPECT_FALSE(axpy.contains("geomean"));
  EXPECT_EQ(axpy["best_own"]["rate"], 50);
}

}  // namespace
}  // namespace hetbench
