// The result table's noise column: the median's interval relative to it, in percent, and
// ">999%" where the interval is ten medians wide or more (three samples with one far off),
// whose digits say nothing more; the record keeps the number.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/record/report.hpp"

namespace hetbench {
namespace {

nlohmann::json record(double rel_half_width) {
  return {{"device", "host"},       {"op", "copy"}, {"precision", "S"}, {"sizes", {{"n", 1000}}},
          {"variant", "loop"},      {"params", nlohmann::json::object()}, {"status", "ok"},
          {"timing", {{"seconds", {{"median", 2e-6}}}, {"reps", 3}, {"rel_half_width", rel_half_width}}}};
}

TEST(ReportTable, NoiseBeyondTenMediansReadsAsABound) {
  const auto text = format_report({record(782.37), record(0.0123)}, "table", false);
  EXPECT_THAT(text, testing::HasSubstr(">999%"));
  EXPECT_THAT(text, testing::HasSubstr("1.23%"));
  EXPECT_THAT(text, testing::Not(testing::HasSubstr("78237")));
}

}  // namespace
}  // namespace hetbench
