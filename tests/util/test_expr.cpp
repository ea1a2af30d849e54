#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "util/ranges.hpp"
#include "hetbench/error.hpp"
#include "hetbench/expr.hpp"

using namespace hetbench;
using testing::HasSubstr;

TEST(Expr, LaunchGeometry) {
  Vars v{{"n", 1000}, {"WG", 64}, {"WPT", 4}};
  EXPECT_EQ(eval_int(Expr("ceil(n / (WPT*WG)) * WG"), v), 256);
  EXPECT_EQ(eval_int(Expr("roundup(n, WG)"), v), 1024);
  EXPECT_EQ(eval_int(Expr("max(1, min(ceil(n/WG), 3))"), v), 3);
  EXPECT_EQ(eval_int(Expr("div(n, 3) + n % 7"), v), 333 + 6);
  EXPECT_EQ(eval_int(Expr("2^20 + 3"), {}), 1048579);
  EXPECT_EQ(eval_int(Expr("1e6"), {}), 1000000);
  EXPECT_EQ(eval_int(Expr("WG <= 64 && !(WPT == 3) ? 1 : 2"), v), 1);
  EXPECT_EQ(eval_int(Expr("is_pow2(WG) + is_pow2(n)"), v), 1);
  EXPECT_EQ(eval_int(Expr("-2^2"), {}), -4);
}

TEST(Expr, NamesAreCollected) {
  Expr e("ceil(n / (WPT*WG)) * WG");
  EXPECT_EQ(e.names(), (std::set<std::string>{"n", "WPT", "WG"}));
}

TEST(Expr, ErrorsNameTheTextAndPosition) {
  try {
    Expr("ceil(n / (WG)");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("ceil(n / (WG)"));
    EXPECT_THAT(e.what(), HasSubstr("expected ')'"));
  }
  EXPECT_THROW(Expr("foo(1)"), Error);
  EXPECT_THROW(Expr("1 +"), Error);
  EXPECT_THROW(Expr("min(1)"), Error);
  EXPECT_THROW(Expr("n $ 2"), Error);
  try {
    Expr("n + WGG").eval({{"n", 1}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown name 'WGG'"));
  }
  EXPECT_THROW(eval_int(Expr("n / 0"), {{"n", 1}}), Error);
  EXPECT_THROW(eval_int(Expr("n / 3"), {{"n", 1}}), Error);  // not an integer
}

TEST(Ranges, ListsAndRanges) {
  EXPECT_EQ(parse_int_list("1000,2^20,1e6", "size"), (std::vector<long long>{1000, 1048576, 1000000}));
  EXPECT_EQ(parse_int_list("8:64:*2", "size"), (std::vector<long long>{8, 16, 32, 64}));
  EXPECT_EQ(parse_int_list("10:20:5", "size"), (std::vector<long long>{10, 15, 20}));
  EXPECT_EQ(parse_int_list("1:3:+1,7", "size"), (std::vector<long long>{1, 2, 3, 7}));
  EXPECT_EQ(parse_int_list("3:100:*10", "size"), (std::vector<long long>{3, 30}));
}

TEST(Ranges, MalformedRangesAreErrors) {
  for (const char* bad : {"", "1,,2", "1:2", "5:1:1", "1:10:0", "1:10:-1", "1:10:*1", "0:10:*2", "x", "1:10:y",
                          "1.5", "1:2:3:4", "1:1e9:1"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_int_list(bad, "size"), Error);
  }
}
