// Every COPY, AXPY and DOT variant x S/D x sizes {1, 7, 1000, 4097, 2^20+3} x several
// parameter values validates on the host and on the OpenCL CPU device (PoCL).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "hetbench/device.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"

using namespace hetbench;

namespace {

const std::vector<std::string> kVectorSizes{"1", "7", "1000", "4097", "2^20+3"};

std::vector<std::string> devices_for(const Variant& v) {
  std::vector<std::string> out;
  for (const auto& d : all_devices())
    if (d->kernel_language() == v.backend && v.backend != BackendKind::Cuda) out.push_back(d->id());
  return out;
}

// Parameter values to try besides the defaults: the smallest and largest of each
// domain, one parameter at a time (the full product would take too long in CI).
std::vector<std::pair<std::string, std::string>> param_variations(const Variant& v) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : v.params) {
    std::set<long long> vals{p.values.front(), p.values.back()};
    for (auto x : vals)
      if (x != p.def) out.emplace_back(p.name, std::to_string(x));
  }
  return out;
}

class VectorVariants : public testing::TestWithParam<std::string> {};

TEST_P(VectorVariants, ValidateOnEveryDevice) {
  const std::string op = GetParam();
  int checked = 0;
  for (const auto& v : variants_for(op)) {
    if (v->backend == BackendKind::Cuda) continue;  // tests/backends/test_cuda_backend.cpp
    if (std::find(v->precisions.begin(), v->precisions.end(), Precision::S) == v->precisions.end())
      continue;  // DF/DD only: tests/ops/test_dw_vectors.cpp
    for (const auto& dev : devices_for(*v)) {
      std::vector<std::map<std::string, std::string>> param_sets{{}};
      for (const auto& [k, val] : param_variations(*v)) param_sets.push_back({{k, val}});
      for (const auto& ps : param_sets) {
        RunSpec spec;
        spec.op = op;
        spec.variants = {v->name};
        spec.devices = dev;
        spec.sizes = kVectorSizes;
        spec.params = ps;
        spec.reps = 1;
        spec.warmup = 0;
        for (const auto& r : test::run_points(spec)) {
          const std::string st = r.value("status", "");
          if (st == "skipped") continue;  // a constraint (e.g. WG > max_wg) excludes the point
          EXPECT_EQ(st, "ok") << test::describe(r);
          EXPECT_LE(r["validation"]["max_err_over_bound"].get<double>(), 1.0) << test::describe(r);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Ops, VectorVariants, testing::Values("copy", "axpy", "dot"));

TEST(VectorVariants, OpenClDeviceIsPresent) {
  bool pocl = false;
  for (const auto& d : all_devices()) pocl |= d->info().backend == BackendKind::OpenCL && d->info().type == "cpu";
  // PoCL is a hard requirement: the set-up scripts install it.
  EXPECT_TRUE(pocl) << "no OpenCL CPU device: " << backends()[1]->unavailable_reason();
}

}  // namespace
