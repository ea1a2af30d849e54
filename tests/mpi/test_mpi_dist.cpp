// `mpirun -np N hetbench dist` (docs/mpi.md): distributed DOT, AXPY and SpMV on seeded
// random data validate on the host and PoCL, with lengths not divisible by the rank count
// and matrices whose rows read x from several other ranks (the halo); more ranks than rows
// is one error. The partition and the halo renumbering are checked in process as well.
#include <set>

#include "mpi/partition.hpp"
#include "sparse/generators.hpp"
#include "test_mpi_util.hpp"

using namespace hetbench::test;

namespace {

nlohmann::json dist(int np, const std::string& args, int expect = 0, const std::string& env = "") {
  auto r = run_mpi(np, "dist " + args + " --json --no-record", env);
  EXPECT_EQ(r.status, expect) << r.output;
  // The JSON object is one line of rank 0's stdout.
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);)
    if (expect == 0 && line.rfind("{\"", 0) == 0) return nlohmann::json::parse(line);
  return {{"output", r.output}};
}

void expect_valid(const nlohmann::json& j, int np) {
  ASSERT_TRUE(j.contains("validation")) << j.dump();
  EXPECT_TRUE(j["validation"]["passed"].get<bool>()) << j.dump(2);
  EXPECT_GT(j["validation"]["checked"].get<long long>(), 0);
  EXPECT_EQ(j["ranks"], np);
  EXPECT_EQ(j["per_rank"].size(), static_cast<std::size_t>(np));
}

TEST(MpiDist, DotAndAxpyValidateOnUnevenBlocks) {
  HETBENCH_REQUIRE_MPI();
  for (int np : {2, 3})
    for (const char* prec : {"S", "D"}) {
      expect_valid(dist(np, std::string("dot --size 100003 --reps 2 --seed 5 --device host --precision ") + prec), np);
      expect_valid(dist(np, std::string("axpy --size 10007 --reps 2 --seed 6 --device host --precision ") + prec), np);
    }
  // PoCL: every rank on the one OpenCL device.
  expect_valid(dist(3, "dot --size 65537 --reps 1 --seed 7 --device opencl --precision D"), 3);
  expect_valid(dist(2, "axpy --size 4099 --reps 1 --seed 8 --device opencl --precision S"), 2);
}

TEST(MpiDist, SpmvHalosCrossSeveralPartitions) {
  HETBENCH_REQUIRE_MPI();
  for (int np : {2, 3}) {
    const auto p = dist(np, "spmv --matrix gen:poisson3d:n=7 --reps 2 --seed 3 --device host --precision D");
    expect_valid(p, np);
    const auto r = dist(np, "spmv --matrix gen:random:n=301,per_row=9 --reps 2 --seed 4 --device opencl --precision S");
    expect_valid(r, np);
    // The random matrix's rows read x from every other rank.
    for (const auto& rank : r["per_rank"]) {
      int sources = 0;
      for (const auto& c : rank["halo_from"]) sources += c.get<int>() > 0;
      EXPECT_EQ(sources, np - 1) << rank.dump();
    }
  }
}

// Rank 0 writes its error line a second late, as on a loaded machine: the other ranks must
// not end the job before it (a CI failure: status 2, the message lost).
TEST(MpiDist, MoreRanksThanRowsIsOneError) {
  HETBENCH_REQUIRE_MPI();
  const auto j = dist(3, "spmv --matrix gen:poisson2d:n=1 --seed 1 --device host", 2, "HETBENCH_TEST_SLOW_ERRORS=1000");
  const std::string out = j["output"];
  EXPECT_NE(out.find("3 ranks for 1 rows"), std::string::npos) << out;
  EXPECT_EQ(out.find("error"), out.rfind("error")) << "one message, from rank 0: " << out;
  const auto d = dist(3, "dot --size 2 --seed 1 --device host", 2);
  EXPECT_NE(d["output"].get<std::string>().find("3 ranks for 2 elements"), std::string::npos) << d.dump();
}

// Every rank reads the same bad command line; one line says what is wrong, and the job
// still fails when rank 0's line comes late.
TEST(MpiDist, BadOptionsAreOneMessage) {
  HETBENCH_REQUIRE_MPI();
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"dot --size 10 --device host", "give --seed under mpirun"},
           {"dot --size 10x --seed 1 --device host", "--size '10x': expected a length >= 1"},
           {"cg --matrix gen:poisson2d:n=4 --seed 1 --tol -1", "--tol must be positive, not -1"}}) {
    const std::string out = dist(3, args, 2, "HETBENCH_TEST_SLOW_ERRORS=500")["output"];
    EXPECT_NE(out.find(what), std::string::npos) << out;
    EXPECT_EQ(out.find("error"), out.rfind("error")) << "one message, from rank 0: " << out;
  }
}

#ifdef HETBENCH_HAVE_MPI
TEST(MpiDist, HaloRenumberingKeepsEveryProduct) {
  using namespace hetbench;
  const CsrMatrix a = generate_matrix("gen:poisson3d:n=5", 9);
  for (int p : {1, 2, 3, 7}) {
    const mpi::BlockPartition part{a.rows, p};
    std::int64_t rows = 0, nnz = 0;
    for (int r = 0; r < p; ++r) {
      const auto lr = mpi::local_rows(a, part, part, r);
      rows += lr.a.rows;
      nnz += lr.a.nnz();
      EXPECT_EQ(lr.halo_counts[r], 0) << "a rank's own columns are no halo";
      // Every entry maps back to its global column: own block first, then the halo.
      for (std::int64_t i = 0; i < lr.a.rows; ++i)
        for (std::int32_t k = lr.a.rowptr[i], g = a.rowptr[part.begin(r) + i]; k < lr.a.rowptr[i + 1]; ++k) {
          const std::int32_t c = lr.a.colidx[k];
          const std::int64_t global = c < part.count(r) ? part.begin(r) + c : lr.halo[c - part.count(r)];
          std::set<std::int64_t> row(a.colidx.begin() + a.rowptr[part.begin(r) + i],
                                     a.colidx.begin() + a.rowptr[part.begin(r) + i + 1]);
          EXPECT_TRUE(row.count(global)) << "p " << p << " rank " << r << " row " << i;
          (void)g;
        }
    }
    EXPECT_EQ(rows, a.rows);
    EXPECT_EQ(nnz, a.nnz());
    EXPECT_EQ(part.begin(p), a.rows);
    for (std::int64_t i = 0; i < a.rows; i += 17) EXPECT_LE(part.begin(part.owner(i)), i);
  }
}
#endif

}  // namespace
