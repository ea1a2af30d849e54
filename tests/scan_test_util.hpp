// Shared by test_scan.cpp and test_reduce.cpp: every non-CUDA variant of an op, in S, D
// and I32, on every device of its API, with the defaults and the ends of each parameter
// domain (one parameter at a time), on the sizes given.
#pragma once

#include <gtest/gtest.h>

#include <set>

#include "hetbench/device.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"

namespace hetbench::test {

inline int validate_every_variant(const std::string& op, const std::vector<std::string>& sizes) {
  int checked = 0;
  for (const auto& v : variants_for(op)) {
    if (v->backend == BackendKind::Cuda) continue;  // compiled by test_cuda_nvrtc.cpp, run on the GPU
    std::vector<std::map<std::string, std::string>> param_sets{{}};
    for (const auto& p : v->params)
      for (auto x : std::set<long long>{p.values.front(), p.values.back()})
        if (x != p.def) param_sets.push_back({{p.name, std::to_string(x)}});
    for (const auto& d : all_devices()) {
      if (d->kernel_language() != v->backend) continue;
      for (const auto& ps : param_sets) {
        RunSpec spec;
        spec.op = op;
        spec.variants = {v->name};
        spec.devices = d->id();
        spec.precisions = {Precision::S, Precision::D, Precision::I32};
        spec.sizes = sizes;
        spec.params = ps;
        spec.reps = 2;  // the second run must not see the first one's state (flags, counters)
        spec.warmup = 0;
        for (const auto& r : run_points(spec)) {
          const std::string st = r.value("status", "");
          if (st == "skipped") continue;  // a constraint (e.g. WG > max_wg) excludes the point
          EXPECT_EQ(st, "ok") << describe(r);
          EXPECT_LE(r["validation"]["max_err_over_bound"].get<double>(), 1.0) << describe(r);
          if (r.value("precision", "") == "I32") EXPECT_EQ(r["validation"]["max_abs_err"].get<double>(), 0.0) << describe(r);
          ++checked;
        }
      }
    }
  }
  return checked;
}

// A `run` that must stop as bad input (exit 2) with the message, measuring nothing.
inline void expect_bad_input(const std::string& args, const std::string& message) {
  TempDir out;
  const auto r = run_hetbench(args + " --out " + out.str());
  EXPECT_TRUE(std::filesystem::is_empty(out.path())) << args;
  EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
}

}  // namespace hetbench::test
