// `mpirun -np N hetbench dist cg|bicgstab` (docs/mpi.md, "Distributed solvers") on the
// host and PoCL: the distributed solve reaches the one-device true-residual bound, takes
// the iterations the one-rank solve takes (within kIterSlack: the dots' partial sums are
// added in another order, so each residual norm differs in its last bits and the stopping
// test can flip one iteration), and its solution agrees with the one-rank one to what the
// two residual bounds allow; the record is an ordinary experiment folder; bad input is one
// message each, and a stagnating solve stops at --max-iter saying so.
#include <cmath>

#include <fmt/format.h>

#include "io/matrix_market.hpp"
#include "sparse/generators.hpp"
#include "test_mpi_util.hpp"

using namespace hetbench::test;
namespace fs = std::filesystem;

namespace {

constexpr long kIterSlack = 1;

struct Solve {
  CmdResult cmd;
  nlohmann::json rec, exp;
  std::vector<double> x;
};

Solve dist_solve(int np, const std::string& args, int expect = 0) {
  TempDir tmp;
  Solve s;
  const auto x = tmp.path() / "x.txt";
  s.cmd = run_mpi(np, "dist " + args + " --out " + tmp.str() + " --solution " + x.string());
  EXPECT_EQ(s.cmd.status, expect) << s.cmd.output;
  if (fs::exists(tmp.path() / "x.txt")) {
    std::ifstream f(x);
    for (double v; f >> v;) s.x.push_back(v);
  }
  for (const auto& e : fs::directory_iterator(tmp.path()))
    if (e.is_directory()) {
      const auto recs = hetbench::read_results(e.path());
      if (!recs.empty()) s.rec = recs.front();
      std::ifstream f(e.path() / "experiment.json");
      s.exp = nlohmann::json::parse(f);
    }
  return s;
}

// ||A (x1 - x2)|| / ||b||: both solutions are within their true-residual bound, so the
// difference's residual is at most the two bounds together.
double residual_of_difference(const hetbench::CsrMatrix& a, const std::vector<double>& x1,
                              const std::vector<double>& x2, std::uint64_t seed) {
  std::vector<double> b(a.rows);
  hetbench::fill_random(b.data(), b.size(), seed, 21);
  long double d2 = 0, b2 = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    long double s = 0;
    for (auto q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q)
      s += static_cast<long double>(a.values[q]) * (x1[a.colidx[q]] - x2[a.colidx[q]]);
    d2 += s * s;
    b2 += static_cast<long double>(b[i]) * b[i];
  }
  return static_cast<double>(std::sqrt(d2 / b2));
}

void expect_agrees(const Solve& one, const Solve& many, const hetbench::CsrMatrix& a, std::uint64_t seed, int np) {
  ASSERT_FALSE(one.rec.is_null() || many.rec.is_null()) << many.cmd.output;
  EXPECT_EQ(many.rec["status"], "ok") << many.rec.dump(1);
  EXPECT_TRUE(many.rec["true_residual"]["within"].get<bool>()) << many.rec["true_residual"].dump();
  EXPECT_NEAR(many.rec["iterations"].get<long>(), one.rec["iterations"].get<long>(), kIterSlack) << np << " ranks";
  ASSERT_EQ(many.x.size(), static_cast<std::size_t>(a.rows));
  ASSERT_EQ(one.x.size(), many.x.size());
  const double allowed = one.rec["true_residual"]["bound"].get<double>() + many.rec["true_residual"]["bound"].get<double>();
  EXPECT_LE(residual_of_difference(a, one.x, many.x, seed), allowed) << np << " ranks";
  EXPECT_EQ(many.rec["ranks"], np);
  EXPECT_EQ(many.rec["per_rank"].size(), static_cast<std::size_t>(np));
}

}  // namespace

TEST(MpiSolve, DistributedCgMatchesOneRank) {
  HETBENCH_REQUIRE_MPI();
  const std::uint64_t seed = fresh_seed();
  const std::string m = "gen:poisson3d:n=11";  // 1331 rows: blocks of 665/666 and 443/444 rows
  const auto a = hetbench::generate_matrix(m, seed);
  const std::string args = "cg --matrix " + m + " --device host --precision D --tol 1e-9 --seed " + std::to_string(seed);
  const auto one = dist_solve(1, args);
  for (int np : {2, 3}) {
    const auto many = dist_solve(np, args);
    expect_agrees(one, many, a, seed, np);
    // Rows in a block that read x from a neighbour: one plane (121) each way, or less at the ends.
    for (const auto& r : many.rec["per_rank"]) EXPECT_GT(r["halo"].get<int>(), 0) << r.dump();
  }
  // The record: an experiment of kind dist, the iteration split as solve records it, plus the halo.
  const auto& r = one.rec;
  EXPECT_EQ(one.exp["kind"], "dist");
  EXPECT_EQ(r["op"], "dist_cg");
  for (const char* k : {"spmv", "dot", "axpy", "precond", "halo", "allreduce"})
    EXPECT_TRUE(r["kernels_timed"]["seconds_per_iteration"].contains(k)) << k;
  EXPECT_EQ(r["residual_history"].size(), static_cast<std::size_t>(r["iterations"].get<long>() + 1));
  EXPECT_NE(r["transport"].get<std::string>().find("mpi"), std::string::npos);
  EXPECT_NE(one.cmd.output.find("not NCCL"), std::string::npos) << one.cmd.output;
}

TEST(MpiSolve, DistributedBiCGStabOnPoCLWithANonsymmetricMatrix) {
  HETBENCH_REQUIRE_MPI();
  const std::uint64_t seed = fresh_seed();
  TempDir tmp;
  // Poisson 2-D with its upper off-diagonals halved: diagonally dominant, not symmetric.
  auto a = hetbench::generate_matrix("gen:poisson2d:n=23", seed);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (auto q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q)
      if (a.colidx[q] > i) a.values[q] *= 0.5;
  const auto file = tmp.path() / "nonsym.mtx";
  hetbench::write_matrix_market(a, file.string());
  const std::string args = "bicgstab --matrix " + file.string() + " --device opencl --precision D --tol 1e-9 --seed " +
                           std::to_string(seed);
  const auto one = dist_solve(1, args);
  const auto many = dist_solve(3, args);
  expect_agrees(one, many, a, seed, 3);
  // CG refuses it, naming the entry.
  const auto cg = dist_solve(2, "cg --matrix " + file.string() + " --device host --seed 1", 2);
  EXPECT_NE(cg.cmd.output.find("CG needs a symmetric matrix"), std::string::npos) << cg.cmd.output;
}

TEST(MpiSolve, BadInputIsOneMessageEach) {
  HETBENCH_REQUIRE_MPI();
  TempDir tmp;
  auto one_error = [](const Solve& s, const std::string& what) {
    EXPECT_NE(s.cmd.output.find(what), std::string::npos) << s.cmd.output;
    EXPECT_EQ(s.cmd.output.find("error"), s.cmd.output.rfind("error")) << "one message, from rank 0: " << s.cmd.output;
  };
  write_text(tmp.path() / "rect.mtx", "%%MatrixMarket matrix coordinate real general\n3 4 3\n1 1 1\n2 2 1\n3 3 1\n");
  one_error(dist_solve(2, "cg --matrix " + (tmp.path() / "rect.mtx").string() + " --seed 1", 2),
            "the solvers need a square matrix, this one is 3 x 4");
  one_error(dist_solve(3, "cg --matrix gen:poisson2d:n=1 --seed 1", 2), "3 ranks for 1 rows");
  // Symmetric and negative definite (diagonal -1, off-diagonals 0.1): p·Ap < 0 at once.
  std::string indef = "%%MatrixMarket matrix coordinate real symmetric\n40 40 79\n";
  for (int i = 1; i <= 40; ++i) indef += fmt::format("{} {} -1\n", i, i);
  for (int i = 1; i < 40; ++i) indef += fmt::format("{} {} 0.1\n", i + 1, i);
  write_text(tmp.path() / "indef.mtx", indef);
  one_error(dist_solve(2, "cg --precond none --matrix " + (tmp.path() / "indef.mtx").string() + " --seed 1", 2),
            "not positive definite");
  // A zero row: singular, and Jacobi has nothing to divide by.
  write_text(tmp.path() / "sing.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4\n3 3 4\n");
  one_error(dist_solve(2, "cg --matrix " + (tmp.path() / "sing.mtx").string() + " --seed 1", 2),
            "row 2 (1-based) has no diagonal entry");
  one_error(dist_solve(2, "cg --matrix gen:poisson2d:n=9 --device cuda:99 --seed 1", 2),
            "every rank (2): unknown device");
  // Stagnation: stops at --max-iter, says so, exit 1, and the record is written.
  const auto s = dist_solve(2, "cg --matrix gen:poisson3d:n=9 --max-iter 3 --tol 1e-12 --seed 1", 1);
  EXPECT_NE(s.cmd.output.find("stopped at --max-iter 3"), std::string::npos) << s.cmd.output;
  EXPECT_EQ(s.rec["stop"], "max-iter");
  EXPECT_EQ(s.rec["iterations"], 3);
}
