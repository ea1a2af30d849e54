#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hetbench/error.hpp"
#include "sparse/csr.hpp"
#include "sparse/generators.hpp"

namespace hetbench {
namespace {

using testing::AllOf;
using testing::HasSubstr;

CsrMatrix gen(const std::string& spec, uint64_t seed = 1) {
  CsrMatrix m = generate_matrix(spec, seed);
  check_csr(m, spec.c_str());
  return m;
}

int64_t row_len(const CsrMatrix& m, int64_t i) { return m.rowptr[i + 1] - m.rowptr[i]; }

double at(const CsrMatrix& m, int64_t i, int64_t j) {
  auto b = m.colidx.begin() + m.rowptr[i], e = m.colidx.begin() + m.rowptr[i + 1];
  auto it = std::lower_bound(b, e, j);
  return it != e && *it == j ? m.values[it - m.colidx.begin()] : 0.0;
}

bool symmetric(const CsrMatrix& m) {
  for (int64_t i = 0; i < m.rows; ++i)
    for (int32_t k = m.rowptr[i]; k < m.rowptr[i + 1]; ++k)
      if (at(m, m.colidx[k], i) != m.values[k]) return false;
  return true;
}

TEST(SparseGenerators, StencilNonzeroCounts) {
  for (int64_t n = 1; n <= 7; ++n) {
    SCOPED_TRACE(n);
    EXPECT_EQ(gen("gen:poisson2d:n=" + std::to_string(n)).nnz(), 5 * n * n - 4 * n);
    EXPECT_EQ(gen("gen:laplace2d9:n=" + std::to_string(n)).nnz(), (3 * n - 2) * (3 * n - 2));
    EXPECT_EQ(gen("gen:poisson3d:n=" + std::to_string(n)).nnz(), 7 * n * n * n - 6 * n * n);
    EXPECT_EQ(gen("gen:laplace3d27:n=" + std::to_string(n)).nnz(), (3 * n - 2) * (3 * n - 2) * (3 * n - 2));
  }
  EXPECT_EQ(gen("gen:poisson3d:n=4").nnz(), 7 * 64 - 6 * 16);
}

TEST(SparseGenerators, StencilValuesAndShape) {
  struct Case {
    const char* spec;
    int64_t rows;
    double diag;
    int64_t bandwidth;
  };
  for (const Case& c : {Case{"gen:poisson2d:n=5", 25, 4, 5}, Case{"gen:laplace2d9:n=5", 25, 8, 6},
                        Case{"gen:poisson3d:n=5", 125, 6, 25}, Case{"gen:laplace3d27:n=5", 125, 26, 31}}) {
    SCOPED_TRACE(c.spec);
    CsrMatrix m = gen(c.spec);
    EXPECT_EQ(m.rows, c.rows);
    EXPECT_EQ(m.cols, c.rows);
    EXPECT_TRUE(symmetric(m));
    EXPECT_EQ(matrix_features(m).bandwidth, c.bandwidth);
    for (int64_t i = 0; i < m.rows; ++i) {
      EXPECT_EQ(at(m, i, i), c.diag);
      for (int32_t k = m.rowptr[i]; k < m.rowptr[i + 1]; ++k)
        if (m.colidx[k] != i) {
          EXPECT_EQ(m.values[k], -1.0);
        }
    }
    EXPECT_EQ(m, generate_matrix(c.spec, 99));  // stencils ignore the seed
  }
  // An interior row of the 3-D 7-point stencil has all seven entries.
  CsrMatrix p = gen("gen:poisson3d:n=3");
  EXPECT_EQ(row_len(p, 13), 7);
  EXPECT_EQ(row_len(p, 0), 4);
}

TEST(SparseGenerators, OneByOne) {
  CsrMatrix m = gen("gen:poisson2d:n=1");
  EXPECT_EQ(m.rows, 1);
  EXPECT_EQ(m.nnz(), 1);
  EXPECT_EQ(m.values[0], 4.0);
  for (const char* spec : {"gen:laplace3d27:n=1", "gen:random:n=1,per_row=1", "gen:dense_row:n=1",
                           "gen:banded:n=1,bw=0", "gen:powerlaw:n=1,avg=1"}) {
    CsrMatrix one = gen(spec);
    EXPECT_EQ(one.rows, 1) << spec;
    EXPECT_EQ(one.cols, 1) << spec;
    EXPECT_EQ(one.nnz(), 1) << spec;
    EXPECT_NE(one.values[0], 0.0) << spec;
  }
}

TEST(SparseGenerators, RandomRowsHaveExactlyPerRowDistinctColumns) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    for (const char* spec : {"gen:random:n=200,per_row=5", "gen:random:n=50,per_row=40",
                             "gen:random:n=30,per_row=7,cols=1000", "gen:random:n=10,per_row=10"}) {
      SCOPED_TRACE(spec);
      CsrMatrix m = gen(spec, seed);
      int64_t per_row = m.nnz() / m.rows;
      for (int64_t i = 0; i < m.rows; ++i) EXPECT_EQ(row_len(m, i), per_row);
      for (double v : m.values) EXPECT_TRUE(v != 0.0 && std::abs(v) <= 1.0);
    }
  }
  EXPECT_EQ(gen("gen:random:n=30,per_row=7,cols=1000").cols, 1000);
}

TEST(SparseGenerators, EmptyRows) {
  CsrMatrix none = gen("gen:random:n=50,per_row=0");
  EXPECT_EQ(none.rows, 50);
  EXPECT_EQ(none.nnz(), 0);
  for (uint64_t seed = 0; seed < 10; ++seed) {
    CsrMatrix m = gen("gen:random:n=100,per_row=3,empty=0.25", seed);
    int64_t empty = 0;
    for (int64_t i = 0; i < m.rows; ++i) empty += row_len(m, i) == 0;
    EXPECT_EQ(empty, 25);
    EXPECT_EQ(m.nnz(), 75 * 3);
    EXPECT_EQ(matrix_features(m).row_min, 0);
  }
  EXPECT_EQ(gen("gen:random:n=10,per_row=3,empty=1").nnz(), 0);
}

TEST(SparseGenerators, DenseRow) {
  CsrMatrix m = gen("gen:dense_row:n=100,row=42");
  for (int64_t i = 0; i < m.rows; ++i) {
    EXPECT_EQ(row_len(m, i), i == 42 ? 100 : 1);
    if (i != 42) {
      EXPECT_EQ(m.colidx[m.rowptr[i]], i);
    }
  }
  MatrixFeatures f = matrix_features(m);
  EXPECT_EQ(f.row_max, 100);
  EXPECT_EQ(f.row_min, 1);
  EXPECT_EQ(row_len(gen("gen:dense_row:n=5"), 0), 5);
}

TEST(SparseGenerators, Banded) {
  CsrMatrix full = gen("gen:banded:n=100,bw=3");
  EXPECT_EQ(full.nnz(), 100 * 7 - 3 * 4);
  EXPECT_EQ(matrix_features(full).bandwidth, 3);
  for (uint64_t seed = 0; seed < 10; ++seed) {
    CsrMatrix m = gen("gen:banded:n=2000,bw=10,density=0.3", seed);
    EXPECT_LE(matrix_features(m).bandwidth, 10);
    double expected = 0.3 * (2000 * 21 - 10 * 11);
    EXPECT_NEAR(static_cast<double>(m.nnz()), expected, 0.05 * expected);
  }
  EXPECT_EQ(gen("gen:banded:n=10,bw=0").nnz(), 10);
  EXPECT_EQ(gen("gen:banded:n=10,bw=9").nnz(), 100);
}

TEST(SparseGenerators, PowerLaw) {
  for (uint64_t seed = 0; seed < 5; ++seed) {
    CsrMatrix m = gen("gen:powerlaw:n=20000,avg=8", seed);
    MatrixFeatures f = matrix_features(m);
    EXPECT_NEAR(f.row_mean, 8.0, 0.4);
    EXPECT_GT(f.row_max, 20 * f.row_mean);  // heavy-tailed
    EXPECT_GT(f.row_std, f.row_mean);
  }
  CsrMatrix plain = gen("gen:powerlaw:n=5000,avg=4,alpha=3,shuffle=0");
  EXPECT_EQ(matrix_features(plain).row_max, row_len(plain, 0));  // unshuffled: row 0 is the heaviest
  gen("gen:powerlaw:n=3000,avg=20,alpha=2");
  gen("gen:powerlaw:n=50,avg=50");  // rows as long as the matrix is wide
}

TEST(SparseGenerators, DeterministicPerSeed) {
  for (const char* spec : {"gen:random:n=500,per_row=4", "gen:banded:n=500,bw=4,density=0.5",
                           "gen:powerlaw:n=500,avg=5", "gen:dense_row:n=50"}) {
    SCOPED_TRACE(spec);
    EXPECT_EQ(generate_matrix(spec, 7), generate_matrix(spec, 7));
    EXPECT_NE(generate_matrix(spec, 7), generate_matrix(spec, 8));
  }
}

TEST(SparseGenerators, BadSpecsNameTheProblem) {
  struct Case {
    const char* spec;
    const char* says;
  };
  for (const Case& c : {
           Case{"poisson3d:n=4", "gen:"},
           Case{"gen:nope:n=4", "unknown generator 'nope'"},
           Case{"gen:poisson3d", "missing key 'n'"},
           Case{"gen:poisson3d:n=4,size=2", "unknown key 'size'"},
           Case{"gen:poisson3d:n=abc", "key 'n'"},
           Case{"gen:poisson3d:n=0", "key 'n'"},
           Case{"gen:poisson3d:n=-3", "key 'n'"},
           Case{"gen:poisson3d:n=4x", "key 'n'"},
           Case{"gen:poisson3d:n=", "key 'n'"},
           Case{"gen:poisson3d:n=2000", "key 'n'"},
           Case{"gen:poisson2d:n=99999999", "key 'n'"},
           Case{"gen:random:n=5,per_row", "'per_row' is not key=value"},
           Case{"gen:random:n=5,per_row=6", "key 'per_row'"},
           Case{"gen:random:n=5,per_row=2,empty=1.5", "key 'empty'"},
           Case{"gen:random:n=5,per_row=2,n=6", "key 'n' is given twice"},
           Case{"gen:random:n=100000,per_row=100000", "per_row"},
           Case{"gen:banded:n=10,bw=10", "key 'bw'"},
           Case{"gen:banded:n=10,bw=2,density=0", "key 'density'"},
           Case{"gen:banded:n=10,bw=2,density=nan", "key 'density'"},
           Case{"gen:powerlaw:n=100,avg=5,alpha=1.5", "key 'alpha'"},
           Case{"gen:powerlaw:n=100", "missing key 'avg'"},
           Case{"gen:powerlaw:n=100,avg=5,shuffle=2", "key 'shuffle'"},
           Case{"gen:dense_row:n=5,row=5", "key 'row'"},
       }) {
    SCOPED_TRACE(c.spec);
    try {
      generate_matrix(c.spec, 1);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), AllOf(HasSubstr(c.spec), HasSubstr(c.says)));
    }
  }
}

TEST(SparseGenerators, NamesAndDescriptions) {
  std::vector<std::string> names = generator_names();
  for (const char* name : {"poisson2d", "laplace2d9", "poisson3d", "laplace3d27", "banded", "random",
                           "powerlaw", "dense_row"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  for (const GeneratorInfo& g : generator_infos()) {
    EXPECT_THAT(g.usage, HasSubstr("gen:" + g.name));
    EXPECT_FALSE(g.description.empty());
    EXPECT_EQ(g.description.find('\n'), std::string::npos);
  }
}

TEST(SparseCsr, Features) {
  CsrMatrix m;
  m.rows = 3;
  m.cols = 5;
  m.rowptr = {0, 2, 2, 6};
  m.colidx = {0, 4, 0, 1, 2, 3};
  m.values = {1, 2, 3, 4, 5, 6};
  MatrixFeatures f = matrix_features(m);
  EXPECT_EQ(f.nnz, 6);
  EXPECT_EQ(f.row_min, 0);
  EXPECT_EQ(f.row_max, 4);
  EXPECT_DOUBLE_EQ(f.row_mean, 2.0);
  EXPECT_DOUBLE_EQ(f.row_std, std::sqrt(8.0 / 3.0));
  EXPECT_EQ(f.bandwidth, 4);
  EXPECT_EQ(f.bytes, 6 * 12 + 4 * 4);
  nlohmann::json j = to_json(f);
  EXPECT_EQ(j.at("nnz"), 6);
  EXPECT_EQ(j.at("bandwidth"), 4);
  EXPECT_EQ(j.at("bytes"), 88);
  EXPECT_EQ(j.size(), 9u);

  MatrixFeatures empty = matrix_features(gen("gen:random:n=4,per_row=0"));
  EXPECT_EQ(empty.row_max, 0);
  EXPECT_EQ(empty.bandwidth, 0);
}

TEST(SparseCsr, CheckFindsDefects) {
  CsrMatrix good = gen("gen:poisson2d:n=3");
  EXPECT_NO_THROW(check_csr(good));
  auto broken = [&](auto&& edit) {
    CsrMatrix m = good;
    edit(m);
    return m;
  };
  EXPECT_THROW(check_csr(broken([](CsrMatrix& m) { m.rowptr.pop_back(); })), Error);
  EXPECT_THROW(check_csr(broken([](CsrMatrix& m) { m.colidx[1] = m.colidx[0]; })), Error);
  EXPECT_THROW(check_csr(broken([](CsrMatrix& m) { m.colidx[0] = 9; })), Error);
  EXPECT_THROW(check_csr(broken([](CsrMatrix& m) { m.values.pop_back(); })), Error);
  EXPECT_THROW(check_csr(broken([](CsrMatrix& m) { m.rowptr[2] = m.rowptr[1] - 1; })), Error);
}

TEST(SparseCsr, FromCooSortsAndSumsDuplicates) {
  std::vector<int32_t> r = {2, 0, 2, 0, 2};
  std::vector<int32_t> c = {1, 3, 0, 3, 1};
  std::vector<double> v = {1, 2, 3, 4, 5};
  CsrMatrix m = csr_from_coo(3, 4, r, c, v);
  check_csr(m);
  EXPECT_EQ(m.rowptr, (std::vector<int32_t>{0, 1, 1, 3}));
  EXPECT_EQ(m.colidx, (std::vector<int32_t>{3, 0, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{6, 3, 6}));
}

TEST(SparseCsr, FromCooMatchesAReference) {
  std::mt19937 rng(3);
  for (int t = 0; t < 20; ++t) {
    int64_t rows = 1 + rng() % 40, cols = 1 + rng() % 40;
    std::vector<int32_t> r, c;
    std::vector<double> v;
    std::map<std::pair<int32_t, int32_t>, double> ref;
    for (int k = 0, n = static_cast<int>(rng() % 400); k < n; ++k) {
      r.push_back(static_cast<int32_t>(rng() % rows));
      c.push_back(static_cast<int32_t>(rng() % cols));
      v.push_back(static_cast<int>(rng() % 7) - 3);  // small integers: sums are exact
      ref[{r.back(), c.back()}] += v.back();
    }
    CsrMatrix m = csr_from_coo(rows, cols, r, c, v);
    check_csr(m);
    ASSERT_EQ(m.nnz(), static_cast<int64_t>(ref.size()));
    for (const auto& [rc, value] : ref) EXPECT_EQ(at(m, rc.first, rc.second), value);
  }
}

}  // namespace
}  // namespace hetbench
