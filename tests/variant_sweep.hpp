// Shared by the tests of ops measured by many variants (copy_strided, gather, pchase, scan,
// reduce): every non-CUDA variant over sizes on the host and PoCL, at its defaults and
// with each parameter at either end of its domain (one at a time), and the CLI's
// bad-input check. CUDA kernels are compiled by tests/backends/test_cuda_nvrtc.cpp and run on a GPU.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "hetbench/device.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"

namespace hetbench::test {

// A variant's double-word precisions (DF, DD), in its order.
inline std::vector<Precision> dw_precisions(const Variant& v) {
  std::vector<Precision> out;
  for (auto p : v.precisions)
    if (p == Precision::DF || p == Precision::DD) out.push_back(p);
  return out;
}

struct Sweep {
  std::vector<Precision> precisions{Precision::S, Precision::D};
  int reps = 1;  // 2: the second run must not see the first one's state (flags, counters)
  double max_err_over_bound = 1.0;  // 0 for ops whose results must be exact
  bool extremes = true;  // false: the defaults only (each layout of a laid-out op is a program of its own)
};

// The prefix ops (reduce, scan): S, D and I32, each variant run twice (a second run must
// not see the first one's flags or counters).
inline const Sweep kPrefixSweep{{Precision::S, Precision::D, Precision::I32}, 2, 1.0};

// Every point must validate; returns the records that ran (constraint-skipped ones, such
// as WG > max_wg, left out).
inline std::vector<nlohmann::json> validate_every_variant(const std::string& op, const std::vector<std::string>& sizes,
                                                          const Sweep& how = {}) {
  std::vector<nlohmann::json> all;
  for (const auto& v : variants_for(op)) {
    if (v->backend == BackendKind::Cuda) continue;
    std::vector<std::map<std::string, std::string>> param_sets{{}};
    for (const auto& p : v->params)
      for (auto x : std::set<long long>{p.values.front(), p.values.back()})
        if (x != p.def && how.extremes) param_sets.push_back({{p.name, std::to_string(x)}});
    for (const auto& d : all_devices()) {
      if (d->kernel_language() != v->backend) continue;
      for (const auto& ps : param_sets) {
        RunSpec spec;
        spec.op = op;
        spec.variants = {v->name};
        spec.devices = d->id();
        spec.sizes = sizes;
        spec.params = ps;
        spec.precisions = how.precisions;
        spec.reps = how.reps;
        spec.warmup = 0;
        for (auto& r : run_points(spec)) {
          if (r.value("status", "") == "skipped") continue;
          EXPECT_EQ(r.value("status", ""), "ok") << describe(r);
          EXPECT_LE(r["validation"]["max_err_over_bound"].get<double>(), how.max_err_over_bound) << describe(r);
          if (r.value("precision", "") == "I32")  // integer sums wrap, and are exact
            EXPECT_EQ(r["validation"]["max_abs_err"].get<double>(), 0.0) << describe(r);
          all.push_back(std::move(r));
        }
      }
    }
  }
  return all;
}

// The number of records of each backend ("host", "opencl").
// A double-word run's records in one storage (aos, soa): every measured point passed
// within its bound and was run in that storage. Returns how many were checked and adds
// their variant ids to `ran`.
inline int expect_dw_storage_points(const RunSpec& spec, const std::string& storage, std::set<std::string>& ran) {
  int checked = 0;
  for (const auto& r : run_points(spec)) {
    if (r.value("status", "") == "skipped") continue;  // a constraint excludes the point
    EXPECT_EQ(r.value("status", ""), "ok") << describe(r);
    EXPECT_LE(r["validation"]["max_err_over_bound"].get<double>(), 1.0) << describe(r);
    EXPECT_EQ(r["sizes"]["soa"], storage == "soa" ? 1 : 0) << describe(r);
    EXPECT_EQ(r["features"]["storage"], storage) << describe(r);
    ran.insert(r.value("variant_id", ""));
    ++checked;
  }
  return checked;
}

inline std::map<std::string, int> by_backend(const std::vector<nlohmann::json>& recs) {
  std::map<std::string, int> n;
  for (const auto& r : recs) ++n[r.value("backend", "")];
  return n;
}

// A device of this much memory and this largest allocation, for Op::device_fit.
inline DeviceInfo device_with(std::uint64_t global_mem, std::uint64_t max_alloc) {
  DeviceInfo d;
  d.global_mem = global_mem;
  d.max_alloc = max_alloc;
  return d;
}

// A bad input: exit 2, the message, and no experiment folder.
inline void expect_bad_input(const std::string& args, const std::string& message) {
  TempDir out;
  const auto r = run_hetbench(args + " --out " + out.str());
  EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
  EXPECT_THAT(r.output, testing::HasSubstr(message)) << args;
  EXPECT_TRUE(std::filesystem::is_empty(out.path())) << args;
}

}  // namespace hetbench::test
