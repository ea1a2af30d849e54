// Directive-based GEMM (docs/directive-gemm.md): the host serial and OpenMP variants
// validate in every layout and odd sizes in S and D; the GPU ones (OpenMP offload,
// OpenACC) are built here when GCC's nvptx offloading is, and without an offload device
// they are skipped with the runtime's own count as the reason, never run on the host;
// asked for a device they cannot target they fail with one clear error; `hetbench list`
// shows them, or says why this build left them out.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <omp.h>

#include <set>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"
#ifdef HETBENCH_HAVE_OFFLOAD
#include "backends/offload/directive_gemm.hpp"
#endif
#include "test_util.hpp"

using namespace hetbench;
using testing::HasSubstr;

namespace {

const char* const kOffloadVariants[] = {"omp_target", "omp_target_map", "omp_target_data",
                                        "acc",        "acc_copy",       "acc_data"};

#ifdef HETBENCH_HAVE_OFFLOAD
// The library's arguments for a problem's sizes and scalars, on host arrays, with a small
// launch (3 teams of 2 threads) for the host fallback.
directive::GemmArgs host_args(const Problem& prob, Precision p, void* C) {
  directive::GemmArgs a;
  a.m = prob.sizes.at("m");
  a.n = prob.sizes.at("n");
  a.k = prob.sizes.at("k");
  a.ta = prob.sizes.at("ta") != 0;
  a.tb = prob.sizes.at("tb") != 0;
  a.dbl = p == Precision::D;
  a.alpha = prob.scalar("alpha")->value;
  a.beta = prob.scalar("beta")->value;
  a.teams = 3;
  a.threads = 2;
  a.A = prob.array("A").host.data();
  a.B = prob.array("B").host.data();
  a.C = C;
  return a;
}
#endif

std::shared_ptr<Variant> find_variant(const std::string& id) {
  for (const auto& v : all_variants())
    if (v->id() == id) return v;
  return nullptr;
}

TEST(GemmDirective, HostSerialAndOpenMpValidateEveryLayoutAndOddSize) {
  for (const char* name : {"serial", "omp"}) {
    RunSpec spec;
    spec.op = "gemm";
    spec.variants = {name};
    spec.devices = "host";
    spec.precisions = {Precision::S, Precision::D};
    for (const char* l : {"NN", "NT", "TN", "TT"})
      for (const char* d : {"1x1x1", "17x33x5", "129x65x257"}) spec.sizes.push_back(std::string(d) + "@" + l);
    // An odd thread count as well: rows do not split evenly.
    if (std::string(name) == "omp") spec.params = {{"THREADS", "1"}};
    spec.reps = 1;
    spec.warmup = 0;
    std::set<std::string> seen;
    for (const auto& r : test::run_points(spec)) {
      EXPECT_EQ(r.value("status", ""), "ok") << test::describe(r);
      EXPECT_LE(r["validation"]["max_err_over_bound"].get<double>(), 1.0) << test::describe(r);
      const auto& s = r["sizes"];
      seen.insert(r["precision"].get<std::string>() + std::to_string(s["m"].get<int>()) + "x" +
                  std::to_string(s["n"].get<int>()) + std::to_string(s["ta"].get<int>()) +
                  std::to_string(s["tb"].get<int>()));
    }
    EXPECT_EQ(seen.size(), 2u * 3u * 4u) << name;
  }
}

// @iter=N (the walk-through's nIter loop): the host loops multiply N times and validate
// as one product; a variant whose code does not loop is skipped with the reason, never
// timed as if it had done N products.
TEST(GemmDirective, HostLoopsIterateAndTheOthersAreSkippedWithTheReason) {
  RunSpec spec;
  spec.op = "gemm";
  spec.variants = {"serial", "omp", "naive"};
  spec.devices = "host";
  spec.precisions = {Precision::S, Precision::D};
  for (const char* l : {"NN", "NT", "TN", "TT"}) spec.sizes.push_back(std::string("17x33x5@") + l + "@iter=3");
  spec.reps = 1;
  spec.warmup = 0;
  int ok = 0, skipped = 0;
  for (const auto& r : test::run_points(spec)) {
    EXPECT_EQ(r["sizes"]["iter"], 3) << test::describe(r);
    if (r["variant"] == "naive") {
      EXPECT_EQ(r.value("status", ""), "skipped") << test::describe(r);
      EXPECT_THAT(r.value("message", ""), HasSubstr("host/gemm/naive does not implement @iter (iter = 3)"));
      ++skipped;
      continue;
    }
    EXPECT_EQ(r.value("status", ""), "ok") << test::describe(r);
    EXPECT_DOUBLE_EQ(r["flops"].get<double>(), 3 * 2.0 * 17 * 33 * 5);
    ++ok;
  }
  EXPECT_EQ(ok, 2 * 2 * 4);
  EXPECT_EQ(skipped, 2 * 4);
}

#ifdef HETBENCH_HAVE_OFFLOAD

// Without an offload device (this machine, CI) the variants report libgomp's own count;
// on a machine with one they are measured by scripts/memory-bench instead.
TEST(GemmDirective, OffloadVariantsAreSkippedWithoutADeviceNeverRunOnTheHost) {
  if (omp_get_num_devices() > 0) GTEST_SKIP() << "an offload device is present: scripts/memory-bench measures them";
  auto host = all_devices().front();
  ASSERT_EQ(host->kernel_language(), BackendKind::Host);
  const Sizes sizes{{"m", 17}, {"n", 33}, {"k", 5}, {"ta", 0}, {"tb", 0}};
  for (const char* name : kOffloadVariants) {
    const auto v = find_variant(std::string("cuda/gemm/") + name);
    ASSERT_TRUE(v) << name;
    ASSERT_TRUE(v->unavailable) << name;
    const bool acc = std::string(name).rfind("acc", 0) == 0;
    EXPECT_THAT(v->violated_constraint(*host, sizes, Precision::S, v->defaults()),
                HasSubstr(acc ? "acc_get_num_devices(acc_device_nvidia) == 0" : "omp_get_num_devices() == 0"))
        << name;
  }
}

// The GPU loop nests' index arithmetic in every layout, S and D, checked here through
// libgomp's host fallback of the library function itself (the variants never fall back:
// see above), against the op's own bound.
TEST(GemmDirective, OffloadLoopNestValidatesInEveryLayoutThroughTheHostFallback) {
  if (omp_get_num_devices() > 0) GTEST_SKIP() << "an offload device is present: the region would not run on the host";
  const Op& op = find_op("gemm");
  for (Precision p : {Precision::S, Precision::D})
    for (const char* l : {"NN", "NT", "TN", "TT"})
      for (const char* d : {"1x1x1", "17x33x5", "129x65x257"})
        for (bool simd : {true, false}) {
          const auto seed = fresh_seed();
          const auto prob = op.make_problem(op.parse_sizes(std::string(d) + "@" + l)[0], p, seed);
          Outputs out{{"C", prob->array("C").host}};
          directive::GemmArgs a = host_args(*prob, p, out["C"].data());
          a.simd = simd;
          directive::omp_target_gemm(a);
          const Validation v = op.validate(*prob, out);
          EXPECT_TRUE(v.passed()) << d << "@" << l << " " << name(p) << " simd " << simd << " seed " << seed << ": " << v.max_ratio;
        }
}

// The three data forms of the OpenMP nest (device pointers, copies per iteration, one
// data region around the loop), @iter=3 in the plain form and once in the scaled form,
// through libgomp's host fallback on the initial device: the result in C and, for the
// copying forms, the copy back in the host array, both validated.
TEST(GemmDirective, OffloadDataFormsValidateThroughTheHostFallback) {
  if (omp_get_num_devices() > 0) GTEST_SKIP() << "an offload device is present: the region would not run on the host";
  const Op& op = find_op("gemm");
  for (Precision p : {Precision::S, Precision::D})
    for (const char* token : {"65x33x17@TN@iter=3", "65x33x17@NT"})
      for (auto data : {directive::Data::device, directive::Data::per_iteration, directive::Data::once}) {
        const auto seed = fresh_seed();
        const auto prob = op.make_problem(op.parse_sizes(token)[0], p, seed);
        const bool plain = prob->sizes.contains("plain");
        // The engine's poison in the plain form's C (nothing of it may be read).
        Outputs out{{"C", plain ? hetbench::Bytes(prob->array("C").bytes(), 0xFF) : prob->array("C").host}};
        hetbench::Bytes back(prob->array("C").bytes(), 0xFF);
        directive::GemmArgs a = host_args(*prob, p, out["C"].data());
        a.plain = plain;
        a.iter = static_cast<int>(prob->sizes.contains("iter") ? prob->sizes.at("iter") : 1);
        a.device = omp_get_initial_device();
        a.data = data;
        a.C0 = plain ? nullptr : prob->array("C").host.data();
        a.c_host = back.data();
        directive::omp_target_gemm(a);
        const std::string what = std::string(token) + " " + name(p) + " form " + std::to_string(int(data)) +
                                 " seed " + std::to_string(seed);
        EXPECT_TRUE(op.validate(*prob, out).passed()) << what;
        if (data != directive::Data::device) EXPECT_TRUE(op.validate(*prob, {{"C", back}}).passed()) << what;
      }
}

// A directive variant on the host device: one clear error, from the planner and from
// prepare alike.
TEST(GemmDirective, OffloadVariantOnTheHostIsOneClearError) {
  auto host = all_devices().front();
  const auto v = find_variant("cuda/gemm/omp_target");
  ASSERT_TRUE(v);
  EXPECT_THAT(v->unsupported_reason(*host, Precision::S), HasSubstr("is a cuda variant"));
  auto prob = find_op("gemm").make_problem(find_op("gemm").parse_sizes("4")[0], Precision::S, 1);
  EXPECT_THROW(
      {
        try {
          v->prepare(*host, *prob, {}, v->defaults());
        } catch (const PointError& e) {
          EXPECT_THAT(e.what(), HasSubstr("runs on cuda devices only"));
          throw;
        }
      },
      PointError);
  const auto r = test::run_hetbench("run gemm --variant cuda/gemm/omp_target --device host --size 8 --reps 1");
  EXPECT_EQ(r.status, 2) << r.output;
}

#endif

TEST(GemmDirective, ListShowsTheOffloadVariantsOrWhyTheyAreLeftOut) {
  const auto r = test::run_hetbench("list variants --op gemm");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* name : kOffloadVariants) {
    const std::string id = std::string("cuda/gemm/") + name;
#ifdef HETBENCH_HAVE_OFFLOAD
    EXPECT_THAT(r.output, testing::ContainsRegex(id + " +library"));
#else
    EXPECT_THAT(r.output, testing::ContainsRegex(id + " +left out: "));  // the id column is padded
#endif
  }
  EXPECT_THAT(r.output, HasSubstr("host/gemm/serial"));
  EXPECT_THAT(r.output, HasSubstr("host/gemm/omp"));
}

}  // namespace
