// The Matrix Market reader's leniency (docs/matrix-market.md): each harmless departure from
// the specification that scipy.io.mmread or fast_matrix_market accepts is read, with one
// warning naming the file and the line; what they reject, or what would change the values,
// stays an error naming the file and the line.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetbench/error.hpp"
#include "csr_util.hpp"
#include "io/matrix_market.hpp"
#include "sparse/generators.hpp"

namespace hetbench {
namespace {

using testing::AllOf;
using testing::HasSubstr;
namespace fs = std::filesystem;

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";
const std::string kSymmetric = "%%MatrixMarket matrix coordinate real symmetric\n";
const std::string kSkew = "%%MatrixMarket matrix coordinate real skew-symmetric\n";
const std::string kPattern = "%%MatrixMarket matrix coordinate pattern general\n";
const std::string kInteger = "%%MatrixMarket matrix coordinate integer general\n";
const std::string kArray = "%%MatrixMarket matrix array real general\n";

class MatrixMarketLenient : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("hetbench_mml_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& text) {
    const auto p = (dir_ / "m.mtx").string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  fs::path dir_;
};

using test::csr;

struct Accepted {
  const char* label;
  std::string text;
  CsrMatrix want;
  int line;          // of the warning
  const char* says;  // in the warning
};

TEST_F(MatrixMarketLenient, HarmlessDeparturesAreReadWithOneWarning) {
  const CsrMatrix one = csr(2, 2, {0, 1, 1}, {0}, {1.5});
  const std::vector<Accepted> cases = {
      {"banner in lower case", "%%matrixmarket matrix coordinate real general\n2 2 1\n1 1 1.5\n", one, 1,
       "'%%matrixmarket' is not spelled '%%MatrixMarket'"},
      {"one percent sign", "%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.5\n", one, 1, "one '%'"},
      {"byte-order mark", "\xEF\xBB\xBF" + kGeneral + "2 2 1\n1 1 1.5\n", one, 1, "byte-order mark"},
      {"indented banner", "  " + kGeneral + "2 2 1\n1 1 1.5\n", one, 1, "blanks before the banner"},
      {"banner extra words", "%%MatrixMarket matrix coordinate real general by tool\n2 2 1\n1 1 1.5\n", one, 1,
       "ignoring 'by' and what follows after the banner's four words"},
      {"banner word case", "%%MatrixMarket MATRIX Coordinate real general\n2 2 1\n1 1 1.5\n", one, 1,
       "'MATRIX' is not lower case"},
      {"field double", "%%MatrixMarket matrix coordinate double general\n2 2 1\n1 1 1.5\n", one, 1,
       "'double' is not standard"},
      {"field unsigned-integer", "%%MatrixMarket matrix coordinate unsigned-integer general\n2 2 1\n2 1 7\n",
       csr(2, 2, {0, 0, 1}, {0}, {7}), 1, "'unsigned-integer'"},
      {"CRLF from the start", "%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n1 1 1.5\r\n", one, 1, "CRLF"},
      {"CRLF later", kGeneral + "% c\n2 2 1\r\n1 1 1.5\r\n", one, 3, "CRLF"},
      {"blank line before the size line", kGeneral + "% c\n\n2 2 1\n1 1 1.5\n", one, 3, "a blank line"},
      {"blank lines among entries", kGeneral + "2 2 2\n1 1 1.5\n \t\n\n2 2 -1\n", csr(2, 2, {0, 1, 2}, {0, 1}, {1.5, -1}),
       4, "a blank line"},
      {"comment after the size line", kGeneral + "2 2 1\n% written by a tool\n1 1 1.5\n", one, 3,
       "a comment line after the size line"},
      {"pattern entry with a value", kPattern + "2 2 1\n1 2 5\n", csr(2, 2, {0, 1, 1}, {1}, {1}), 3,
       "the value '5' after the indices of a pattern entry, ignored"},
      {"comment after an entry", kGeneral + "2 2 1\n1 1 1.5 % checked\n", one, 3, "a comment after the entry"},
      {"integer written as a real", kInteger + "2 2 2\n1 1 2.0\n2 2 -7.\n", csr(2, 2, {0, 1, 2}, {0, 1}, {2, -7}), 3,
       "the integer value '2.0' is written as a real"},
      {"symmetric upper triangle", kSymmetric + "3 3 2\n1 1 1\n1 3 2\n",
       csr(3, 3, {0, 2, 2, 3}, {0, 2, 0}, {1, 2, 2}), 4, "entry (1,3) lies above the diagonal"},
      {"skew upper triangle", kSkew + "2 2 1\n1 2 3\n", csr(2, 2, {0, 1, 2}, {1, 0}, {3, -3}), 3,
       "entry (1,2) lies above the diagonal"},
      {"skew explicit zero diagonal", kSkew + "2 2 2\n2 1 3\n1 1 0\n", csr(2, 2, {0, 2, 3}, {0, 1, 0}, {0, -3, 3}), 4,
       "the explicit zero (1,1) on the diagonal"},
      {"duplicates", kGeneral + "2 2 3\n1 1 1\n2 2 2\n1 1 4\n", csr(2, 2, {0, 1, 2}, {0, 1}, {5, 2}), 5,
       "entry (1,1) repeats an earlier one; repeated entries are summed"},
      {"symmetric duplicates", kSymmetric + "2 2 3\n2 1 1\n% c\n1 1 7\n2 1 2\n",
       csr(2, 2, {0, 2, 3}, {0, 1, 0}, {7, 3, 3}), 6, "entry (2,1) repeats"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    std::vector<std::string> warnings;
    CsrMatrix m;
    try {
      m = read_matrix_market(write(c.text), &warnings);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    EXPECT_EQ(m, c.want);
    std::string found;
    for (const auto& w : warnings)
      if (w.find(c.says) != std::string::npos) found = w;
    EXPECT_THAT(found, HasSubstr("m.mtx:" + std::to_string(c.line) + ": ")) << testing::PrintToString(warnings);
  }
}

TEST_F(MatrixMarketLenient, ConformingFilesGetNoWarning) {
  for (const char* spec : {"gen:random:n=200,per_row=5,empty=0.2", "gen:poisson2d:n=9"}) {
    const CsrMatrix a = generate_matrix(spec, 3);
    const auto p = (dir_ / "c.mtx").string();
    write_matrix_market(a, p);
    std::vector<std::string> warnings;
    EXPECT_EQ(read_matrix_market(p, &warnings), a);
    EXPECT_TRUE(warnings.empty()) << testing::PrintToString(warnings);
  }
  // Spaces and tabs between numbers, a missing last newline and blank lines after the last
  // entry are all within the specification's "separated by blanks" or harmless enough.
  std::vector<std::string> warnings;
  read_matrix_market(write(kGeneral + "% c\n  2\t2 2\n1 1 1\n 2  2\t3\n\n\n"), &warnings);
  read_matrix_market(write(kGeneral + "2 2 1\n1 1 1"), &warnings);
  EXPECT_TRUE(warnings.empty()) << testing::PrintToString(warnings);
}

TEST_F(MatrixMarketLenient, EachKindIsSaidOncePerFileOnStderr) {
  const auto p = write(kGeneral + "3 3 3\n% a\n1 1 1\n\n% b\n2 2 2\n\n3 3 3\n");
  testing::internal::CaptureStderr();
  read_matrix_market(p);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("hetbench: warning: " + p + ":3: a comment line after the size line"));
  EXPECT_THAT(err, HasSubstr("hetbench: warning: " + p + ":5: a blank line"));
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 2) << err;
}

struct Rejected {
  const char* label;
  std::string text;
  int line;
  const char* says;
};

// What both readers reject, and what they read into other values than the file means.
TEST_F(MatrixMarketLenient, HarmfulDeparturesStayErrors) {
  const std::vector<Rejected> cases = {
      {"banner glued to a word", "%%MatrixMarketX matrix coordinate real general\n2 2 0\n", 1, "banner"},
      {"both triangles of a symmetric file", kSymmetric + "3 3 3\n2 1 1\n1 2 1\n3 3 1\n", 4,
       "(1,2) is given in both triangles"},
      {"integer with an exponent", kInteger + "2 2 1\n1 1 1e3\n", 3, "integer value, found '1e3'"},
      {"integer with a fraction", kInteger + "2 2 1\n1 1 2.5\n", 3, "integer value, found '2.5'"},
      {"negative unsigned", "%%MatrixMarket matrix coordinate unsigned-integer general\n2 2 1\n1 1 -1\n", 3,
       "negative value '-1'"},
      {"skew nonzero diagonal", kSkew + "2 2 1\n1 1 4\n", 3, "nonzero diagonal entry (1,1)"},
      {"pattern with a word", kPattern + "2 2 1\n1 1 x\n", 3, "unexpected 'x'"},
      {"second number on a real entry", kGeneral + "2 2 1\n1 1 1.0 0.5\n", 3, "unexpected '0.5'"},
      {"comment after the size line's numbers", kGeneral + "2 2 1 % c\n1 1 1\n", 2, "unexpected '%'"},
      {"comment after an array value", kArray + "1 1\n5 % c\n", 3, "unexpected '%'"},
      {"index written as a real", kGeneral + "2 2 1\n1.0 1 1\n", 3, "row index, found '1.0'"},
      {"value glued to junk", kGeneral + "2 2 1\n1 1 1.5x\n", 3, "'1.5x'"},
      {"fewer entries than declared", kGeneral + "2 2 2\n1 1 1\n", 3, "1 of the 2"},
      {"more entries than declared", kGeneral + "2 2 1\n1 1 1\n2 2 2\n", 4, "more entries than the 1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    std::vector<std::string> warnings;
    try {
      read_matrix_market(write(c.text), &warnings);
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), AllOf(HasSubstr("m.mtx:" + std::to_string(c.line) + ": "), HasSubstr(c.says)));
    }
  }
}

}  // namespace
}  // namespace hetbench
