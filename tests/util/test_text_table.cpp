// util/text_table: the one table printer of run, compare, tune, ceilings and db list.
#include <gtest/gtest.h>

#include <sstream>

#include "util/text_table.hpp"

namespace hetbench {
namespace {

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(TextTable, ALongCellWidensItsColumnAndShiftsNoOther) {
  // A storage key longer than any header (the `db list` bug: fixed widths let it push
  // every later column out of line).
  const std::vector<TextRow> rows{{"id", "storage", "rate"},
                                  {"1", "ta=N;tb=N;storage=aos;form=scaled;erange=4", "3.9e+04"},
                                  {"12", "-", "5"}};
  const auto l = lines(aligned_table(rows, {true, false, true}));
  ASSERT_EQ(l.size(), 3u);
  const auto col = l[1].find("3.9e+04");
  EXPECT_EQ(l[0].find("rate") + 4, col + 7) << "rate is right-aligned over its numbers";
  EXPECT_EQ(l[2].rfind('5'), col + 6);
  EXPECT_EQ(l[0].find("storage"), l[1].find("ta=N"));
  EXPECT_EQ(l[0].substr(0, 2), "id");
  EXPECT_EQ(l[1].substr(0, 2), " 1");
  for (const auto& s : l) EXPECT_NE(s.back(), ' ') << "trailing blanks are trimmed: '" << s << "'";
}

TEST(TextTable, MarkdownHasAHeaderRuleAndOneLinePerRow) {
  const auto l = lines(markdown_table({{"a", "b"}, {"1", "x y"}}));
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], "| a | b |");
  EXPECT_EQ(l[1], "| --- | --- |");
  EXPECT_EQ(l[2], "| 1 | x y |");
}

TEST(TextTable, RowsOfUnequalLengthAndNoRows) {
  EXPECT_EQ(aligned_table({}), "");
  const auto l = lines(aligned_table({{"a", "bb", "c"}, {"xxx"}}));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0], "a    bb  c");
  EXPECT_EQ(l[1], "xxx");
}

}  // namespace
}  // namespace hetbench
