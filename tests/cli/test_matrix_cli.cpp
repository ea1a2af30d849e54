// hetbench matrix SPEC --out FILE: a generated matrix written as Matrix Market, the same
// bytes for the same spec and seed, read back as the matrix the generator makes.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "io/matrix_market.hpp"
#include "sparse/generators.hpp"
#include "test_util.hpp"

using namespace hetbench;
using namespace hetbench::test;
using testing::HasSubstr;

namespace {
std::string bytes_of(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

TEST(MatrixCli, WritesTheGeneratedMatrixTheSameForTheSameSeed) {
  TempDir tmp;
  const std::string spec = "gen:powerlaw:n=3001,avg=7";
  const auto a = tmp.path() / "sub" / "a.mtx", b = tmp.path() / "b.mtx", c = tmp.path() / "c.mtx";
  ASSERT_EQ(run_hetbench(fmt::format("matrix {} --seed 11 --out {}", spec, a.string())).status, 0);
  ASSERT_EQ(run_hetbench(fmt::format("matrix {} --seed 11 --out {}", spec, b.string())).status, 0);
  ASSERT_EQ(run_hetbench(fmt::format("matrix {} --seed 12 --out {}", spec, c.string())).status, 0);
  EXPECT_EQ(bytes_of(a), bytes_of(b));
  EXPECT_NE(bytes_of(a), bytes_of(c));
  EXPECT_TRUE(read_matrix_market(a.string()) == generate_matrix(spec, 11));
  auto r = run_hetbench(fmt::format("matrix poisson --out {}", (tmp.path() / "x.mtx").string()));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("matrix 'poisson': expected a generator spec"));
  r = run_hetbench(fmt::format("matrix gen:random:n=10,per_rwo=3 --out {}", (tmp.path() / "x.mtx").string()));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("per_rwo"));
}
