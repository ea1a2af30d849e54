// SpMV kernels: every OpenCL variant x S/D x awkward matrices x the extremes of each
// parameter validates on PoCL. The matrices hit each kernel's edge: 1x1, empty rows, a
// dense row longer than any work-group (and than a merge tile), every generator at a small
// size, and rectangular ones (fewer and more columns than rows).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "hetbench/device.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"

using namespace hetbench;

namespace {

const std::vector<std::string> kMatrices{
    "gen:dense_row:n=1",                       // 1x1
    "gen:random:n=300,per_row=6,empty=0.4",    // empty rows, including runs of them
    "gen:dense_row:n=20000,row=7",             // one row of 20000 > WG * IPT for every parameter set
    "gen:poisson2d:n=23",
    "gen:laplace2d9:n=17",
    "gen:poisson3d:n=9",
    "gen:laplace3d27:n=7",
    "gen:banded:n=400,bw=9,density=0.6",
    "gen:random:n=250,per_row=13",
    "gen:powerlaw:n=3000,avg=6",
    "gen:random:n=301,per_row=7,cols=57",      // more rows than columns
    "gen:random:n=37,per_row=40,cols=5000",    // more columns than rows
};

// The defaults, every parameter at the least and at the greatest value of its domain with the
// others at their defaults, and all parameters at their least and at their greatest together
// (so that, say, TPR = max_wg meets a work-group that large).
std::vector<ParamValues> spmv_param_sets(const Variant& v) {
  std::vector<ParamValues> out{v.defaults()};
  ParamValues lo = v.defaults(), hi = v.defaults();
  for (const auto& p : v.params) {
    const auto [mn, mx] = std::minmax_element(p.values.begin(), p.values.end());
    for (long long x : {*mn, *mx}) {
      ParamValues ps = v.defaults();
      ps[p.name] = x;
      out.push_back(ps);
    }
    lo[p.name] = *mn;
    hi[p.name] = *mx;
  }
  out.push_back(lo);
  out.push_back(hi);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

TEST(SpmvKernels, EveryOpenclVariantValidatesOnAwkwardMatrices) {
  std::set<std::string> ids;
  int checked = 0;
  for (const auto& v : variants_for("spmv")) {
    if (v->backend != BackendKind::OpenCL) continue;  // CUDA: tests/backends/test_cuda_backend.cpp
    if (v->precisions.front() == Precision::DF) continue;  // DF/DD variants: tests/ops/test_spmv_dw.cpp
    for (const auto& dev : all_devices()) {
      if (dev->kernel_language() != BackendKind::OpenCL) continue;
      for (const auto& ps : spmv_param_sets(*v)) {
        RunSpec spec;
        spec.op = "spmv";
        spec.variants = {v->id()};
        spec.devices = dev->id();
        spec.inputs = kMatrices;
        for (const auto& [k, x] : ps) spec.params[k] = std::to_string(x);
        spec.reps = 1;
        spec.warmup = 0;
        int ran = 0;
        for (const auto& r : test::run_points(spec)) {
          const std::string st = r.value("status", "");
          if (st == "skipped") continue;  // a constraint excludes the set on this device
          EXPECT_EQ(st, "ok") << test::describe(r);
          EXPECT_LE(r["validation"]["max_err_over_bound"].get<double>(), 1.0) << test::describe(r);
          ++ran;
        }
        if (ran == 0) continue;
        EXPECT_EQ(ran, static_cast<int>(2 * kMatrices.size())) << v->id() << " " << format_params(ps);
        ids.insert(v->id());
        checked += ran;
      }
    }
  }
  for (const char* id : {"opencl/spmv/scalar", "opencl/spmv/vector", "opencl/spmv/adaptive", "opencl/spmv/merge"})
    EXPECT_TRUE(ids.count(id)) << id << " did not run";
  EXPECT_GT(checked, 0);
}

}  // namespace
