// AXPY and DOT in the double-word precisions DF and DD: every DF/DD variant x both
// storages (interleaved, two planes) x n in {1, 7, 1000, 4097, 2^20+3} validates on the
// host and PoCL; plain word arithmetic (the lo words dropped) fails the bounds; the
// seeded inputs are genuine double-words; S/D-only variants are skipped in DF/DD.
#include <gtest/gtest.h>

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

const std::vector<std::string> kDwSizes{"1", "7", "1000", "4097", "2^20+3"};

bool has_dw(const Variant& v) {
  for (auto p : v.precisions)
    if (p == Precision::DF || p == Precision::DD) return true;
  return false;
}

// The defaults, then the smallest and largest value of each parameter, one at a time.
std::vector<std::map<std::string, std::string>> dw_param_sets(const Variant& v) {
  std::vector<std::map<std::string, std::string>> out{{}};
  for (const auto& p : v.params)
    for (auto x : std::set<long long>{p.values.front(), p.values.back()})
      if (x != p.def) out.push_back({{p.name, std::to_string(x)}});
  return out;
}

std::vector<std::string> with_storage(const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& s : kDwSizes) out.push_back(s + suffix);
  return out;
}

class DwVariants : public testing::TestWithParam<std::string> {};

TEST_P(DwVariants, ValidateInBothStorages) {
  const std::string op = GetParam();
  std::set<std::string> ran;  // variant ids with at least one checked point
  int checked = 0;
  for (const auto& v : variants_for(op)) {
    if (v->backend == BackendKind::Cuda || !has_dw(*v)) continue;  // CUDA: tests/backends/test_cuda_backend.cpp
    for (const auto& dev : all_devices()) {
      if (dev->kernel_language() != v->backend) continue;
      for (const auto& ps : dw_param_sets(*v)) {
        for (const std::string storage : {"aos", "soa"}) {
          RunSpec spec;
          spec.op = op;
          spec.variants = {v->name};
          spec.devices = dev->id();
          spec.precisions = dw_precisions(*v);
          spec.sizes = with_storage("@" + storage);
          spec.params = ps;
          spec.reps = 1;
          spec.warmup = 0;
          checked += expect_dw_storage_points(spec, storage, ran);
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
  for (const char* id : {"host/{}/dw_loop", "host/{}/dw_omp", "opencl/{}/dw"}) {
    std::string s = id;
    s.replace(s.find("{}"), 2, op);
    EXPECT_TRUE(ran.count(s)) << s << " never ran";
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, DwVariants, testing::Values("axpy", "dot"));

// Word arithmetic on the hi words only (tests/kernels/wrong/*_dw_float.cl) is about u_w
// accurate, not u_w^2: the DF and DD bounds must reject it. AXPY's bound is per element
// (rejected by ~10^6 in DF, ~10^15 in DD at any n). DOT's grows with n while the word
// error of a sum with random signs grows like sqrt(n), so it is checked at n = 7 and 100,
// where the margin is 10^4 and more (at n = 1000 it is ~500 in DF, too close to chance).
TEST(DwValidation, WordArithmeticFails) {
  for (const std::string op : {"axpy", "dot"}) {
    TempDir out;
    const std::string sizes = op == "axpy" ? "7,1000,4097" : "7,100";
    auto r = run_hetbench("--kernels " + source_dir() + "/tests/kernels/wrong run " + op +
                          " --variant dw_float --device opencl:0:0 --precision DF,DD --size " + sizes +
                          " --reps 1 --out " + out.str() + " --seed " + std::to_string(fresh_seed()));
    EXPECT_EQ(r.status, 1) << r.output;
    auto recs = read_results(only_experiment(out.path()));
    EXPECT_EQ(recs.size(), op == "axpy" ? 6u : 4u) << r.output;
    for (const auto& rec : recs) {
      EXPECT_EQ(rec["status"], "failed") << describe(rec);
      EXPECT_GT(rec["validation"]["max_err_over_bound"].get<double>(), op == "axpy" ? 1e4 : 10.0) << describe(rec);
    }
  }
}

// The seeded inputs: lo never zero, hi = RN(hi + lo), the same values in either storage,
// and a double-word alpha.
template <class W>
void check_inputs(Precision p) {
  const Op& axpy = find_op("axpy");
  const std::size_t n = 4097;
  auto aos = axpy.make_problem(axpy.parse_sizes("4097").front(), p, 42);
  auto soa = axpy.make_problem(axpy.parse_sizes("4097@soa").front(), p, 42);
  const W* a = reinterpret_cast<const W*>(aos->array("x").host.data());
  const W* s = reinterpret_cast<const W*>(soa->array("x").host.data());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const W hi = a[2 * i], lo = a[2 * i + 1];
    bad += lo == 0 || hi + lo != hi || std::fabs(lo) > std::fabs(hi) * std::ldexp(W(1), -std::numeric_limits<W>::digits);
    bad += s[i] != hi || s[n + i] != lo;
  }
  EXPECT_EQ(bad, 0u) << name(p);
  EXPECT_NE(aos->scalar("alpha_lo")->value, 0.0) << name(p);
  EXPECT_EQ(aos->scalar("alpha_hi")->value, aos->scalar("alpha")->value) << name(p);
  EXPECT_EQ(aos->features["storage"], "aos");
  EXPECT_EQ(soa->features["storage"], "soa");
}

TEST(DwInputs, GenuineDoubleWords) {
  check_inputs<float>(Precision::DF);
  check_inputs<double>(Precision::DD);
}

TEST(DwInputs, StorageSuffix) {
  const Op& dot = find_op("dot");
  auto s = dot.parse_sizes("2^10@soa");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].at("n"), 1024);
  EXPECT_EQ(s[0].at("soa"), 1);
  EXPECT_EQ(dot.parse_sizes("7,9@AoS")[1].at("soa"), 0);
  EXPECT_EQ(dot.parse_sizes("7")[0].at("soa"), 0);
  EXPECT_THROW(dot.parse_sizes("7@soa2"), Error);
  EXPECT_THROW(dot.parse_sizes("0@soa"), Error);
}

// A run over all variants in DF runs only the double-word ones and skips the rest.
TEST(DwInputs, SingleWordVariantsAreSkipped) {
  RunSpec spec;
  spec.op = "axpy";
  spec.devices = "host,opencl:0:0";
  spec.precisions = {Precision::DF};
  spec.sizes = {"100"};
  spec.reps = 1;
  spec.warmup = 0;
  int status = -1;
  auto recs = run_points(spec, &status);
  EXPECT_EQ(status, 0);
  EXPECT_FALSE(recs.empty());
  for (const auto& r : recs) {
    EXPECT_EQ(r.value("precision", ""), "DF");
    EXPECT_NE(r.value("variant", "").find("dw"), std::string::npos) << describe(r);
    EXPECT_EQ(r.value("status", ""), "ok") << describe(r);
  }
}

}  // namespace
