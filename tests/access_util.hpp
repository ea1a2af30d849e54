// Shared by the tests of the memory-access ops (copy_strided, gather, pchase): every
// non-CUDA variant over sizes on the host and PoCL, and the CLI's bad-input check.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "hetbench/device.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"

namespace hetbench::test {

// Runs every host and OpenCL variant of `op` on every device of its API, with the
// defaults and with each parameter at the ends of its domain; every point must validate.
// Returns the records (CUDA: tests/test_cuda_nvrtc.cpp compiles its kernels).
inline std::vector<nlohmann::json> validate_all(const std::string& op, const std::vector<std::string>& sizes,
                                                const std::vector<std::string>& precisions = {"S", "D"}) {
  std::vector<nlohmann::json> all;
  for (const auto& v : variants_for(op)) {
    if (v->backend == BackendKind::Cuda) continue;
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
        spec.sizes = sizes;
        spec.params = ps;
        spec.precisions.clear();
        for (const auto& p : precisions) spec.precisions.push_back(parse_precision(p));
        spec.reps = 1;
        spec.warmup = 0;
        for (auto& r : run_points(spec)) {
          if (r.value("status", "") == "skipped") continue;  // a constraint such as WG > max_wg
          EXPECT_EQ(r.value("status", ""), "ok") << describe(r);
          EXPECT_EQ(r["validation"]["max_err_over_bound"].get<double>(), 0.0) << describe(r);
          all.push_back(std::move(r));
        }
      }
    }
  }
  return all;
}

// The number of records of each backend ("host", "opencl").
inline std::map<std::string, int> by_backend(const std::vector<nlohmann::json>& recs) {
  std::map<std::string, int> n;
  for (const auto& r : recs) ++n[r.value("backend", "")];
  return n;
}

// A bad input: a non-zero exit, the message, and no experiment folder.
inline void expect_cli_error(const std::string& args, const std::string& message) {
  TempDir out;
  auto r = run_hetbench(args + " --out " + out.str());
  EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
  EXPECT_THAT(r.output, testing::HasSubstr(message)) << args;
  EXPECT_TRUE(std::filesystem::is_empty(out.path())) << args;
}

}  // namespace hetbench::test
