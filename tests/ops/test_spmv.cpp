// SpMV op: matrices from files and generators become problems with their features; the
// host variants validate on awkward matrices; the per-row bound catches a dropped term;
// bad matrices and misplaced options are one-line errors with exit status 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>


#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "io/matrix_market.hpp"
#include "test_util.hpp"

using namespace hetbench;
using testing::HasSubstr;

namespace {

// Awkward shapes: 1x1, a dense row far longer than any work-group, a fifth of the rows
// empty, a rectangular matrix, a power-law one, and a file with explicit empty rows.
std::vector<std::string> awkward_matrices(const test::TempDir& tmp) {
  const std::string one = tmp.str() + "/one.mtx", gaps = tmp.str() + "/gaps.mtx";
  test::write_text(one, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.75\n");
  // rows 1, 3 and 5 empty; row 4 has its entries in reverse column order
  test::write_text(gaps, "%%MatrixMarket matrix coordinate real general\n5 7 5\n2 3 0.5\n4 7 -1.5\n4 1 2.0\n2 1 -0.25\n"
                   "4 4 1.0\n");
  return {one, gaps, "gen:dense_row:n=3000,row=7", "gen:random:n=500,per_row=9,cols=731,empty=0.2",
          "gen:powerlaw:n=2000,avg=12", "gen:poisson2d:n=23", "gen:laplace3d27:n=7", "gen:banded:n=400,bw=13"};
}

TEST(Spmv, HostVariantsValidateOnAwkwardMatrices) {
  test::TempDir tmp;
  RunSpec spec;
  spec.op = "spmv";
  spec.devices = "host";
  spec.inputs = awkward_matrices(tmp);
  spec.reps = 1;
  spec.warmup = 0;
  int status = -1;
  auto recs = test::run_points(spec, &status);
  EXPECT_EQ(status, 0);
  std::set<std::string> variants;
  for (const auto& r : recs) {
    EXPECT_EQ(r.value("status", ""), "ok") << test::describe(r);
    EXPECT_TRUE(r["features"].contains("row_max")) << test::describe(r);
    EXPECT_EQ(r["features"]["matrix"], r["sizes"]["input"]);
    variants.insert(r.value("variant", ""));
  }
  EXPECT_TRUE(variants.count("loop") && variants.count("omp")) << recs.size();
  EXPECT_EQ(recs.size(), spec.inputs.size() * 2 * variants.size());
}

TEST(Spmv, FeaturesAndSizesComeFromTheMatrix) {
  const Op& op = find_op("spmv");
  auto s = op.parse_input("gen:poisson3d:n=5", 1);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].at("rows"), 125);
  EXPECT_EQ(s[0].at("nnz"), 125 * 7 - 6 * 25);
  EXPECT_EQ(s[0].at("max_row"), 7);
  EXPECT_EQ(s[0].input, "gen:poisson3d:n=5");
  auto prob = op.make_problem(s[0], Precision::D, 1);
  EXPECT_EQ(prob->features["nnz"], s[0].at("nnz"));
  EXPECT_EQ(prob->features["row_min"], 4);
  EXPECT_EQ(prob->features["bandwidth"], 25);
  // values + column indices + row pointers + x + y read and written
  EXPECT_DOUBLE_EQ(prob->min_bytes, 725.0 * 12 + 4 * 126 + 8 * 125 + 16 * 125);
}

// y computed in the variant's precision the plain way passes; the same with one term of
// one row dropped does not: the per-row bound is tight enough to see a missing product.
TEST(Spmv, DroppedTermFailsTheBound) {
  const Op& op = find_op("spmv");
  for (Precision p : {Precision::S, Precision::D}) {
    auto s = op.parse_input("gen:random:n=300,per_row=40", test::fresh_seed());
    auto prob = op.make_problem(s[0], p, 7);
    auto run = [&](bool drop) {
      hetbench::Bytes out(prob->array("y").bytes());
      const auto* rp = reinterpret_cast<const int32_t*>(prob->array("row_ptr").host.data());
      const auto* col = reinterpret_cast<const int32_t*>(prob->array("col").host.data());
      auto body = [&]<class T>() {
        const T* val = reinterpret_cast<const T*>(prob->array("val").host.data());
        const T* x = reinterpret_cast<const T*>(prob->array("x").host.data());
        const T* y = reinterpret_cast<const T*>(prob->array("y").host.data());
        T* o = reinterpret_cast<T*>(out.data());
        const T a = static_cast<T>(prob->scalar("alpha")->value), b = static_cast<T>(prob->scalar("beta")->value);
        for (int i = 0; i < 300; ++i) {
          T sum = 0;
          for (int q = rp[i]; q < rp[i + 1] - (drop && i == 150 ? 1 : 0); ++q) sum += val[q] * x[col[q]];
          o[i] = a * sum + b * y[i];
        }
      };
      if (p == Precision::S) body.template operator()<float>();
      else body.template operator()<double>();
      return op.validate(*prob, Outputs{{"y", out}});
    };
    EXPECT_TRUE(run(false).passed()) << name(p);
    auto bad = run(true);
    EXPECT_FALSE(bad.passed()) << name(p);
    EXPECT_EQ(bad.over_bound, 1u) << name(p);
  }
}

TEST(Spmv, BadMatricesAndOptionsAreOneLineErrors) {
  test::TempDir tmp;
  const std::string broken = tmp.str() + "/broken.mtx";
  test::write_text(broken, "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n9 1 2.0\n");
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases{
      {"run spmv --device host --matrix " + broken, "broken.mtx:4"},
      {"run spmv --device host --matrix " + tmp.str() + "/missing.mtx", "missing.mtx"},
      {"run spmv --device host --matrix gen:poisson3d:n=0", "gen:poisson3d:n=0"},
      {"run spmv --device host --matrix gen:nosuch:n=4", "unknown generator 'nosuch'"},
      {"run spmv --device host --size 1000", "not --size '1000'"},
      {"run spmv --device host", "no --matrix given"},
      {"run dot --device host --matrix gen:poisson2d:n=4", "takes no --matrix"},
  };
  for (const auto& c : cases) {
    auto r = test::run_hetbench(c.args + " --out " + tmp.str() + "/out");
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.expect)) << c.args;
    EXPECT_FALSE(std::filesystem::exists(tmp.path() / "out")) << "nothing is recorded for bad input: " << c.args;
  }
}

TEST(Spmv, SpecFilesTakeMatrices) {
  test::TempDir tmp;
  const std::string spec = tmp.str() + "/spmv.json";
  test::write_text(spec, R"({"name": "m", "runs": [{"op": "spmv", "devices": "host", "variants": "loop",
                      "matrices": ["gen:poisson2d:n=9", "gen:banded:n=50,bw=3"], "reps": 1, "warmup": 0}]})");
  auto r = test::run_hetbench("sweep " + spec + " --out " + tmp.str() + "/out --format csv");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("gen:banded:n=50,bw=3"));
}

}  // namespace
