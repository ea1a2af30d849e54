#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
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

class MatrixMarketIo : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::path(testing::TempDir()) / ("hetbench_mm_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static std::string path(const std::string& name) { return (dir_ / name).string(); }

  static std::string write(const std::string& name, const std::string& text) {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

  // Warnings (tests/ops/test_matrix_market_lenient.cpp checks them) are collected, not printed.
  static CsrMatrix read(const std::string& text) {
    std::vector<std::string> warnings;
    return read_matrix_market(write("ok.mtx", text), &warnings);
  }

  // The message of the error that reading `text` from a file called `name` throws.
  static std::string error_of(const std::string& text, const std::string& name = "bad.mtx") {
    try {
      std::vector<std::string> warnings;
      read_matrix_market(write(name, text), &warnings);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return {};
  }

  static fs::path dir_;
};

fs::path MatrixMarketIo::dir_;

const char* const banner = "%%MatrixMarket matrix coordinate real general\n";

using test::csr;

void expect_same_bits(const CsrMatrix& a, const CsrMatrix& b) {
  ASSERT_EQ(a, b);
  EXPECT_EQ(0, std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)));
}

TEST_F(MatrixMarketIo, RoundTripIsExact) {
  for (const char* spec : {"gen:random:n=300,per_row=7,empty=0.1", "gen:powerlaw:n=2000,avg=6",
                           "gen:poisson3d:n=5", "gen:banded:n=50,bw=3,density=0.5", "gen:dense_row:n=40,row=7"}) {
    for (uint64_t seed : {1, 2, 3}) {
      SCOPED_TRACE(spec);
      CsrMatrix m = generate_matrix(spec, seed);
      write_matrix_market(m, path("round.mtx"));
      expect_same_bits(read_matrix_market(path("round.mtx")), m);
    }
  }
}

TEST_F(MatrixMarketIo, RoundTripKeepsAwkwardValues) {
  CsrMatrix m = csr(2, 3, {0, 3, 4}, {0, 1, 2, 1},
                     {0.1, -0.0, 4.9406564584124654e-324, 1.7976931348623157e308});
  write_matrix_market(m, path("awkward.mtx"));
  CsrMatrix r = read_matrix_market(path("awkward.mtx"));
  expect_same_bits(r, m);
  EXPECT_TRUE(std::signbit(r.values[1]));
}

TEST_F(MatrixMarketIo, EmptyMatrixAndEmptyRowsRoundTrip) {
  for (const CsrMatrix& m : {csr(0, 0, {0}, {}, {}), csr(3, 2, {0, 0, 0, 0}, {}, {}),
                             csr(3, 4, {0, 0, 2, 2}, {1, 3}, {1.5, -2})}) {
    write_matrix_market(m, path("empty.mtx"));
    EXPECT_EQ(read_matrix_market(path("empty.mtx")), m);
  }
}

TEST_F(MatrixMarketIo, SymmetricIsExpanded) {
  CsrMatrix m = read("%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 2\n3 1 3\n3 3 4\n");
  EXPECT_EQ(m, csr(3, 3, {0, 3, 4, 6}, {0, 1, 2, 0, 0, 2}, {1, 2, 3, 2, 3, 4}));
}

TEST_F(MatrixMarketIo, SkewSymmetricIsExpandedNegated) {
  CsrMatrix m = read("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 2 -1.5\n");
  EXPECT_EQ(m, csr(3, 3, {0, 1, 3, 4}, {1, 0, 2, 1}, {-5, 5, 1.5, -1.5}));
}

TEST_F(MatrixMarketIo, DuplicatesAreSummedAndColumnsSorted) {
  CsrMatrix m = read(std::string(banner) + "2 4 6\n1 4 1\n1 2 2\n1 4 10\n2 3 1\n1 1 3\n1 2 0.5\n");
  EXPECT_EQ(m, csr(2, 4, {0, 3, 4}, {0, 1, 3, 2}, {3, 2.5, 11, 1}));
}

TEST_F(MatrixMarketIo, SymmetricDiagonalDuplicatesAreSummed) {
  CsrMatrix m = read("%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n2 1 1\n2 1 2\n1 1 7\n");
  EXPECT_EQ(m, csr(2, 2, {0, 2, 3}, {0, 1, 0}, {7, 3, 3}));
}

TEST_F(MatrixMarketIo, PatternValuesAreOne) {
  CsrMatrix m = read("%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 3\n2 1\n1 1\n");
  EXPECT_EQ(m, csr(2, 3, {0, 2, 3}, {0, 2, 0}, {1, 1, 1}));
  CsrMatrix s = read("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n");
  EXPECT_EQ(s, csr(2, 2, {0, 2, 3}, {0, 1, 0}, {1, 1, 1}));
}

TEST_F(MatrixMarketIo, IntegerField) {
  CsrMatrix m = read("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 2 +12\n");
  EXPECT_EQ(m, csr(2, 2, {0, 1, 2}, {1, 1}, {-7, 12}));
}

TEST_F(MatrixMarketIo, ArrayGeneralIsColumnMajor) {
  CsrMatrix m = read("%%MatrixMarket matrix array real general\n% comment\n2 3\n1\n2\n3\n4\n5\n0\n");
  // Every value of an array file is an entry, zeros included.
  EXPECT_EQ(m, csr(2, 3, {0, 3, 6}, {0, 1, 2, 0, 1, 2}, {1, 3, 5, 2, 4, 0}));
}

TEST_F(MatrixMarketIo, ArraySymmetricAndSkew) {
  CsrMatrix s = read("%%MatrixMarket matrix array integer symmetric\n2 2\n1\n2\n3\n");
  EXPECT_EQ(s, csr(2, 2, {0, 2, 4}, {0, 1, 0, 1}, {1, 2, 2, 3}));
  CsrMatrix k = read("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
  EXPECT_EQ(k, csr(3, 3, {0, 2, 4, 6}, {1, 2, 0, 2, 0, 1}, {-1, -2, 1, -3, 2, 3}));
}

TEST_F(MatrixMarketIo, LenientWhitespaceCaseAndComments) {
  CsrMatrix m = read(
      "%%matrixmarket MATRIX Coordinate REAL General\r\n% a comment\r\n\r\n  2\t2  2 \r\n"
      "1 1 1.5e0\r\n\n% comment between entries\n2\t2\t-.25");  // no final newline
  EXPECT_EQ(m, csr(2, 2, {0, 1, 2}, {0, 1}, {1.5, -0.25}));
}

TEST_F(MatrixMarketIo, SubnormalAndLeadingZeros) {
  CsrMatrix m = read(std::string(banner) + "1 2 2\n001 0002 1e-320\n1 1 1e-400\n");
  ASSERT_EQ(m.nnz(), 2);
  EXPECT_EQ(m.values[0], 0.0);
  EXPECT_GT(m.values[1], 0.0);
}

struct BadCase {
  const char* label;
  std::string text;
  int line;
  const char* says;
};

TEST_F(MatrixMarketIo, MalformedFilesNameFileAndLine) {
  const std::string sym = "%%MatrixMarket matrix coordinate real symmetric\n";
  const std::string skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n";
  const std::string pattern = "%%MatrixMarket matrix coordinate pattern general\n";
  const std::string integer = "%%MatrixMarket matrix coordinate integer general\n";
  const std::string array = "%%MatrixMarket matrix array real general\n";
  const std::string b = banner;
  const std::vector<BadCase> cases = {
      {"empty file", "", 1, "empty"},
      {"no banner", "3 3 1\n1 1 1\n", 1, "banner"},
      {"banner not first", "\n" + b + "1 1 1\n1 1 1\n", 1, "banner"},
      {"short banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "banner"},
      {"vector object", "%%MatrixMarket vector coordinate real general\n", 1, "'vector' is unsupported"},
      {"unknown format", "%%MatrixMarket matrix sparse real general\n", 1, "format 'sparse'"},
      {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, "complex matrices are unsupported"},
      {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n", 1, "hermitian matrices are unsupported"},
      {"unknown field", "%%MatrixMarket matrix coordinate float general\n", 1, "field 'float'"},
      {"unknown symmetry", "%%MatrixMarket matrix coordinate real upper\n", 1, "symmetry 'upper'"},
      {"array pattern", "%%MatrixMarket matrix array pattern general\n2 2\n", 1, "pattern"},
      {"pattern skew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n", 1, "skew"},
      {"no size line", b + "% only comments\n\n", 3, "size line"},
      {"no size line, no newline", b + "% only comments", 2, "size line"},
      {"size too short", b + "3 3\n", 2, "three numbers"},
      {"array size too short", array + "3\n", 2, "two numbers"},
      {"size not numeric", b + "% c\n3 x 5\n", 3, "'x'"},
      {"size float", b + "3 3 1.5\n", 2, "'1.5'"},
      {"size junk", b + "3 3 1 7\n", 2, "unexpected '7'"},
      {"negative rows", b + "-3 3 1\n", 2, "negative row count"},
      {"negative nnz", b + "3 3 -1\n", 2, "negative nonzero count"},
      {"nnz beyond int32", b + "10 10 3000000000\n", 2, "int32"},
      {"huge nnz", b + "10 10 123456789012345678901234567890\n", 2, "int32"},
      {"rows beyond int32", b + "3000000000 1 1\n1 1 1\n", 2, "int32"},
      {"array beyond int32", array + "50000 50000\n1\n", 2, "2^31-1"},
      {"non-square symmetric", sym + "3 4 1\n1 1 1\n", 2, "square"},
      {"row index zero", b + "3 3 1\n0 1 1\n", 3, "row index '0' is out of range 1..3"},
      {"column index too big", b + "% c\n3 3 2\n1 1 1\n1 4 1\n", 5, "column index '4' is out of range 1..3"},
      {"negative index", b + "3 3 1\n-1 1 1\n", 3, "row index '-1' is out of range"},
      {"huge index", b + "3 3 1\n99999999999999999999 1 1\n", 3, "out of range"},
      {"index into zero rows", b + "0 0 1\n1 1 1\n", 3, "no rows"},
      {"too few entries", b + "3 3 3\n1 1 1\n2 2 2\n", 4, "2 of the 3"},
      {"too few, blank tail", b + "3 3 3\n1 1 1\n\n\n", 5, "1 of the 3"},
      {"too many entries", b + "3 3 1\n1 1 1\n% c\n2 2 2\n", 5, "more entries than the 1"},
      {"junk after entry", b + "3 3 1\n1 1 1.0 x\n", 3, "unexpected 'x'"},
      {"junk glued to value", b + "3 3 1\n1 1 1.0x\n", 3, "'1.0x'"},
      {"junk glued to index", b + "3 3 1\n1,1 1.0\n", 3, "'1,1'"},
      {"non-numeric row", b + "3 3 1\nab 1 1\n", 3, "row index, found 'ab'"},
      {"missing value", b + "3 3 2\n1 1 1\n2 2\n", 4, "missing value"},
      {"missing column", b + "3 3 1\n2\n", 3, "missing column"},
      {"value is a word", b + "3 3 1\n1 1 one\n", 3, "'one'"},
      {"nan value", b + "3 3 1\n1 1 nan\n", 3, "finite"},
      {"overflowing value", b + "3 3 1\n1 1 1e999\n", 3, "range"},
      {"plus minus", b + "3 3 1\n1 1 +-1\n", 3, "'+-1'"},
      {"fortran exponent", b + "3 3 1\n1 1 1.0D+00\n", 3, "'1.0D+00'"},
      {"pattern with junk", pattern + "3 3 1\n1 1 2x\n", 3, "unexpected '2x'"},
      {"integer with fraction", integer + "3 3 1\n1 1 1.5\n", 3, "integer value, found '1.5'"},
      {"skew diagonal", skew + "3 3 2\n2 1 1\n2 2 1\n", 4, "diagonal entry (2,2)"},
      {"symmetric both triangles", sym + "3 3 2\n3 1 1\n1 3 1\n", 4, "both triangles"},
      {"array too few", array + "2 2\n1\n2\n3\n", 5, "3 of the 4"},
      {"array too many", array + "1 2\n1\n2\n3\n", 5, "more values"},
      {"array two per line", array + "2 2\n1 2\n3\n4\n", 3, "unexpected '2'"},
      {"array non-square skew", "%%MatrixMarket matrix array real skew-symmetric\n2 3\n", 2, "square"},
      {"binary junk", b + "3 3 1\n1 1 \x01\x02\n", 3, "'\\x01\\x02'"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.label);
    std::string msg = error_of(c.text);
    EXPECT_THAT(msg, AllOf(HasSubstr("bad.mtx:" + std::to_string(c.line) + ": "), HasSubstr(c.says)));
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

TEST_F(MatrixMarketIo, MissingFileAndDirectory) {
  try {
    read_matrix_market(path("nope.mtx"));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("nope.mtx"), HasSubstr("cannot open")));
  }
  try {
    read_matrix_market(dir_.string());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("directory"));
  }
  try {
    write_matrix_market(csr(1, 1, {0, 0}, {}, {}), path("no/such/dir.mtx"));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("dir.mtx"));
  }
}

TEST_F(MatrixMarketIo, WriteRejectsInvalidCsr) {
  EXPECT_THROW(write_matrix_market(csr(2, 2, {0, 1}, {0}, {1.0}), path("w.mtx")), Error);
  EXPECT_THROW(write_matrix_market(csr(1, 2, {0, 2}, {1, 0}, {1.0, 2.0}), path("w.mtx")), Error);
}

// Damaged files must give an Error or a valid matrix: never a crash (run under ASan/UBSan).
TEST_F(MatrixMarketIo, MutatedFilesNeverCrash) {
  std::string good =
      "%%MatrixMarket matrix coordinate real symmetric\n% c\n4 4 5\n1 1 1.5\n2 1 -2\n3 2 3e2\n4 4 4\n4 1 .5\n";
  const std::string alphabet = "0123456789 \n\t%.-+eE%x\r";
  std::mt19937 rng(7);
  int ok = 0;
  for (int t = 0; t < 1000; ++t) {  // file writes dominate the time
    std::string s = good;
    for (int k = 0, edits = 1 + t % 4; k < edits; ++k) {
      size_t at = rng() % (s.size() + 1);
      switch (rng() % 4) {
        case 0: if (at < s.size()) s[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        case 2: if (at < s.size()) s.erase(at, 1); break;
        default: s.resize(std::min(s.size(), at)); break;
      }
    }
    try {
      check_csr(read(s));
      ++ok;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("ok.mtx:"));
    }
  }
  EXPECT_GT(ok, 0);
}

}  // namespace
}  // namespace hetbench
