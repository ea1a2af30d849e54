// SpMV in DF and DD: every double-word host and OpenCL variant x both storages x awkward
// matrices (1x1, empty rows, one dense row longer than any work-group, sizes that are no
// multiple of a work-group, rectangular, and a seeded Matrix Market file whose values span
// 24 orders of magnitude) validates on the host and PoCL against the per-row bound of
// docs/validation.md; the inputs are genuine double-words; bad storage suffixes are bad input.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"
#include "variant_sweep.hpp"

using namespace hetbench;
using namespace hetbench::test;

namespace {

const std::vector<std::string> kDwMatrices{
    "gen:dense_row:n=1",                     // 1x1
    "gen:random:n=300,per_row=6,empty=0.4",  // empty rows, including runs of them
    "gen:dense_row:n=5000,row=7",            // one row of 5000 > any work-group
    "gen:poisson3d:n=9",                     // 729 rows
    "gen:powerlaw:n=3000,avg=6",
    "gen:random:n=301,per_row=7,cols=57",    // more rows than columns
    "gen:random:n=37,per_row=40,cols=5000",  // more columns than rows
};

// 517 x 300 with empty rows, a dense row and values ±10^e, e uniform in [-12, 12], seeded.
std::string wide_range_matrix(const std::filesystem::path& dir, std::uint64_t seed) {
  const auto path = dir / "wide.mtx";
  std::string body;
  int nnz = 0;
  for (int i = 0; i < 517; ++i) {
    if (i % 5 == 3) continue;  // empty
    const int per = i == 100 ? 300 : 1 + i % 9;
    for (int k = 0; k < per; ++k) {
      const int j = i == 100 ? k : static_cast<int>((i * 37 + k * 101) % 300);
      const double r = random_value(seed, 1, static_cast<std::uint64_t>(nnz));
      const double e = 24 * (std::fabs(r) - 0.0625) / 0.9375 - 12;
      body += fmt::format("{} {} {:.17g}\n", i + 1, j + 1, std::copysign(std::pow(10.0, e), r));
      ++nnz;
    }
  }
  write_text(path, fmt::format("%%MatrixMarket matrix coordinate real general\n517 300 {}\n{}", nnz, body));
  return path.string();
}

bool has_dw(const Variant& v) {
  for (auto p : v.precisions)
    if (p == Precision::DF || p == Precision::DD) return true;
  return false;
}

TEST(SpmvDw, EveryHostAndOpenclVariantValidatesInBothStorages) {
  TempDir dir;
  std::vector<std::string> inputs = kDwMatrices;
  inputs.push_back(wide_range_matrix(dir.path(), fresh_seed()));
  std::set<std::string> ran;
  int checked = 0;
  for (const auto& v : variants_for("spmv")) {
    if (v->backend == BackendKind::Cuda || !has_dw(*v)) continue;  // CUDA: tests/backends/test_cuda_backend.cpp
    for (const auto& dev : all_devices()) {
      if (dev->kernel_language() != v->backend) continue;
      // The defaults and every parameter at its least, then at its greatest, together.
      std::vector<ParamValues> sets{v->defaults()};
      ParamValues lo = v->defaults(), hi = v->defaults();
      for (const auto& p : v->params) {
        lo[p.name] = *std::min_element(p.values.begin(), p.values.end());
        hi[p.name] = *std::max_element(p.values.begin(), p.values.end());
      }
      if (lo != sets[0]) sets.push_back(lo);
      if (hi != sets[0]) sets.push_back(hi);
      for (const auto& ps : sets) {
        for (const std::string storage : {"aos", "soa"}) {
          RunSpec spec;
          spec.op = "spmv";
          spec.variants = {v->id()};
          spec.devices = dev->id();
          spec.precisions = {Precision::DF, Precision::DD};
          for (const auto& m : inputs) spec.inputs.push_back(m + "@" + storage);
          for (const auto& [k, x] : ps) spec.params[k] = std::to_string(x);
          spec.reps = 1;
          spec.warmup = 0;
          checked += expect_dw_storage_points(spec, storage, ran);
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
  for (const char* id : {"host/spmv/dw_loop", "host/spmv/dw_omp", "opencl/spmv/dw_scalar", "opencl/spmv/dw_vector"})
    EXPECT_TRUE(ran.count(id)) << id << " never ran";
}

// The inputs are double-words (lo never zero, hi = RN(hi + lo)), the same values in
// either storage, and the storage is recorded whatever the token says.
TEST(SpmvDw, InputsAreDoubleWordsInEitherStorage) {
  const Op& op = find_op("spmv");
  const std::uint64_t seed = fresh_seed();
  auto aos = op.make_problem(op.parse_input("gen:poisson2d:n=7", seed).front(), Precision::DF, seed);
  auto soa = op.make_problem(op.parse_input("gen:poisson2d:n=7@SoA", seed).front(), Precision::DF, seed);
  EXPECT_EQ(aos->sizes.at("soa"), 0);
  EXPECT_EQ(soa->sizes.at("soa"), 1);
  EXPECT_EQ(aos->features["storage"], "aos");
  EXPECT_EQ(soa->features["storage"], "soa");
  for (const char* nm : {"val", "x", "y"}) {
    const auto& a = aos->array(nm);
    const std::size_t n = a.count;
    const float* w = reinterpret_cast<const float*>(a.host.data());
    const float* s = reinterpret_cast<const float*>(soa->array(nm).host.data());
    EXPECT_EQ(a.elem_bytes, 8u);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_NE(w[2 * i + 1], 0.0f) << nm << " " << i;
      EXPECT_EQ(w[2 * i] + w[2 * i + 1], w[2 * i]) << nm << " " << i;
      EXPECT_EQ(w[2 * i], s[i]) << nm << " " << i;
      EXPECT_EQ(w[2 * i + 1], s[n + i]) << nm << " " << i;
    }
  }
  EXPECT_NE(aos->scalar("alpha_lo")->value, 0.0);
  EXPECT_NE(aos->scalar("beta_lo")->value, 0.0);
}

// A kernel that drops val's lo words (tests/kernels/wrong/spmv_dw_hi.cl, otherwise the
// accurate arithmetic) is about u_w off per product: the bound rejects it by ~10^5 (DF)
// and ~10^14 (DD), so the seeded lo words of the matrix matter.
TEST(SpmvDw, DroppingValLoFails) {
  TempDir out;
  auto r = run_hetbench("--kernels " + source_dir() + "/tests/kernels/wrong run spmv --variant dw_hi --device opencl:0:0 "
                        "--precision DF,DD --matrix gen:poisson3d:n=9 --matrix gen:powerlaw:n=3000,avg=6 --reps 1 "
                        "--out " + out.str() + " --seed " + std::to_string(fresh_seed()));
  EXPECT_EQ(r.status, 1) << r.output;
  auto recs = read_results(only_experiment(out.path()));
  EXPECT_EQ(recs.size(), 4u) << r.output;
  for (const auto& rec : recs) {
    EXPECT_EQ(rec["status"], "failed") << describe(rec);
    EXPECT_GT(rec["validation"]["max_err_over_bound"].get<double>(), 1e3) << describe(rec);
  }
}

// A storage spmv has not (GEMM's @d64, a typo) is bad input naming it; a file name with
// an '@' that is not a suffix is still a file name.
TEST(SpmvDw, BadStorageSuffixIsNamed) {
  for (const std::string bad : {"gen:poisson2d:n=5@d64", "gen:poisson2d:n=5@soa2"}) {
    TempDir out;
    auto r = run_hetbench("run spmv --variant dw_loop --device host --precision DF --matrix '" + bad +
                          "' --reps 1 --out " + out.str());
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find(bad.substr(bad.rfind('@'))), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("aos, soa"), std::string::npos) << r.output;
  }
  TempDir out;
  auto r = run_hetbench("run spmv --variant dw_loop --device host --precision DD --matrix '" + out.str() +
                        "/m@1.mtx' --reps 1 --out " + out.str());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("m@1.mtx"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("not a storage"), std::string::npos) << r.output;
}

}  // namespace
