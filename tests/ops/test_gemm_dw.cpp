// GEMM in DF and DD: every double-word variant x storage (aos, soa, d64) x NN/NT/TN/TT x
// {1x1x1, 17x33x5, 129x65x257} validates on the host and PoCL, with Mukunoki & Imamura's sloppy and
// the accurate multiply and add; plain word arithmetic fails the bound; storage suffixes
// parse; large problems validate a sample.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"
#include "variant_sweep.hpp"

using namespace hetbench;
using namespace hetbench::test;
using testing::HasSubstr;

namespace {

std::vector<std::string> sizes_all_layouts(const std::string& storage) {
  std::vector<std::string> out;
  for (const char* l : {"NN", "NT", "TN", "TT"})
    for (const char* d : {"1x1x1", "17x33x5", "129x65x257"}) out.push_back(std::string(d) + "@" + l + "@" + storage);
  return out;
}

// The defaults (Mukunoki & Imamura: 48x48x16 tiles, 3x3 per work-item, sloppy multiply and add),
// then the accurate operations, each alone, on tiles with one column per work-item and
// more work-items than elements of a k-tile.
std::vector<std::map<std::string, std::string>> gemm_dw_param_sets(const Variant& v) {
  std::vector<std::map<std::string, std::string>> out{{}};
  if (v.name == "dw_tiled") {
    out.push_back({{"BM", "32"}, {"BN", "16"}, {"BK", "4"}, {"TM", "2"}, {"TN", "1"}, {"MUL", "1"}, {"ADD", "1"}});
    out.push_back({{"MUL", "1"}, {"ADD", "0"}});
    out.push_back({{"MUL", "0"}, {"ADD", "1"}, {"TM", "4"}, {"TN", "2"}, {"BM", "64"}, {"BN", "32"}});
  }
  return out;
}

TEST(GemmDw, EveryVariantValidatesInEveryStorageAndLayout) {
  int checked = 0;
  std::set<std::string> ids;
  for (const auto& v : variants_for("gemm")) {
    if (v->backend == BackendKind::Cuda || dw_precisions(*v).empty()) continue;  // CUDA: on a GPU only
    if (v->name.rfind("ozaki", 0) == 0) continue;  // DF only, with their own bound: tests/ops/test_gemm_ozaki.cpp
    for (const auto& dev : all_devices()) {
      if (dev->kernel_language() != v->backend) continue;
      for (const auto& ps : gemm_dw_param_sets(*v)) {
        for (const std::string storage : {"aos", "soa", "d64"}) {
          RunSpec spec;
          spec.op = "gemm";
          spec.variants = {v->name};
          spec.devices = dev->id();
          spec.precisions = dw_precisions(*v);
          spec.sizes = sizes_all_layouts(storage);
          spec.params = ps;
          spec.reps = 1;
          spec.warmup = 0;
          std::set<std::string> seen;  // precision and layout
          for (const auto& r : test::run_points(spec)) {
            if (r.value("status", "") == "skipped") continue;  // a constraint excludes the point
            EXPECT_EQ(r.value("status", ""), "ok") << test::describe(r);
            EXPECT_LE(r["validation"]["max_err_over_bound"].get<double>(), 1.0) << test::describe(r);
            EXPECT_EQ(r["features"]["storage"], storage) << test::describe(r);
            const auto& s = r["sizes"];
            seen.insert(r.value("precision", "") + std::to_string(s["ta"].get<int>()) + std::to_string(s["tb"].get<int>()));
            ids.insert(v->id());
            ++checked;
          }
          EXPECT_EQ(seen.size(), 8u) << v->id() << " on " << dev->id() << " @" << storage;
        }
      }
    }
  }
  EXPECT_TRUE(ids.count("host/gemm/dw"));
  EXPECT_TRUE(ids.count("opencl/gemm/dw_tiled"));
  EXPECT_GT(checked, 0);
}

// Word arithmetic on the hi words only is about u_w accurate, 2^24 (DF) or 2^53 (DD)
// times u: far outside the bound even at k = 257.
TEST(GemmDw, WordArithmeticFails) {
  test::TempDir out;
  auto r = test::run_hetbench("--kernels " + test::source_dir() +
                              "/tests/kernels/wrong run gemm --variant dw_float --device opencl:0:0 --precision DF,DD "
                              "--size 17x33x5,129x65x257 --reps 1 --out " +
                              out.str() + " --seed " + std::to_string(test::fresh_seed()));
  EXPECT_EQ(r.status, 1) << r.output;
  auto recs = read_results(test::only_experiment(out.path()));
  ASSERT_EQ(recs.size(), 4u) << r.output;
  for (const auto& rec : recs) {
    EXPECT_EQ(rec["status"], "failed") << test::describe(rec);
    EXPECT_GT(rec["validation"]["max_err_over_bound"].get<double>(), 100.0) << test::describe(rec);
  }
}

TEST(GemmDw, ParsesStorageSuffixes) {
  const Op& op = find_op("gemm");
  auto s = op.parse_sizes("17x33x5@NT@soa");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0], (Sizes{{"m", 17}, {"n", 33}, {"k", 5}, {"ta", 0}, {"tb", 1}, {"soa", 1}, {"d64", 0}}));
  s = op.parse_sizes("64@D64@tt");
  EXPECT_EQ(s[0], (Sizes{{"m", 64}, {"n", 64}, {"k", 64}, {"ta", 1}, {"tb", 1}, {"soa", 0}, {"d64", 1}}));
  s = op.parse_sizes("8,16@aos");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].at("soa"), 0);
  EXPECT_EQ(s[1].at("d64"), 0);
  EXPECT_EQ(op.parse_sizes("8")[0].count("soa"), 0u);  // S and D sizes are unchanged
  for (const char* bad : {"8@soa@aos", "8@NT@TN@soa", "8@d32", "8@soa@", "@d64"}) {
    try {
      op.parse_sizes(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(std::string("malformed GEMM size '") + bad + "'")) << e.what();
      EXPECT_THAT(e.what(), HasSubstr("@aos|soa|d64"));
    }
  }
}

// Element sizes and scalars per storage; d64 operands are binary64 in both precisions.
TEST(GemmDw, OperandsPerStorage) {
  const Op& op = find_op("gemm");
  struct Case {
    const char* size;
    Precision p;
    std::size_t elem;
    const char* storage;
  };
  for (const Case& c : {Case{"17x33x5", Precision::DF, 8, "aos"}, Case{"17x33x5@soa", Precision::DF, 8, "soa"},
                        Case{"17x33x5@d64", Precision::DF, 8, "d64"}, Case{"17x33x5", Precision::DD, 16, "aos"},
                        Case{"17x33x5@NT@d64", Precision::DD, 8, "d64"}}) {
    auto prob = op.make_problem(op.parse_sizes(c.size).front(), c.p, 7);
    for (const char* a : {"A", "B", "C"}) EXPECT_EQ(prob->array(a).elem_bytes, c.elem) << c.size << " " << a;
    EXPECT_EQ(prob->array("C").count, 17u * 33u);
    EXPECT_EQ(prob->features["storage"], c.storage);
    EXPECT_EQ(prob->sizes.at("d64"), std::string(c.storage) == "d64") << c.size;
    EXPECT_EQ(prob->sizes.at("soa"), std::string(c.storage) == "soa") << c.size;
    for (const char* s : {"alpha_lo", "beta_lo"}) EXPECT_NE(prob->scalar(s)->value, 0.0) << s;
    EXPECT_EQ(prob->scalar("alpha")->value, prob->scalar("alpha_hi")->value);
  }
  EXPECT_EQ(op.device_bytes(op.parse_sizes("4x4x4@d64").front(), Precision::DD), 64u * 8u);
  EXPECT_EQ(op.device_bytes(op.parse_sizes("4x4x4").front(), Precision::DD), 64u * 16u);
}

TEST(GemmDw, LargeProblemsValidateASample) {
  RunSpec spec;
  spec.op = "gemm";
  spec.variants = {"host/gemm/dw"};
  spec.devices = "host";
  spec.precisions = {Precision::DF};
  spec.sizes = {"1024x512x257@soa"};  // > 2^27 multiply-adds
  spec.reps = 1;
  spec.warmup = 0;
  auto recs = test::run_points(spec);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0]["status"], "ok") << test::describe(recs[0]);
  EXPECT_EQ(recs[0]["validation"]["checked"], 4096) << test::describe(recs[0]);
  EXPECT_THAT(recs[0]["validation"]["note"].get<std::string>(), HasSubstr("sampled 4096 of 524288 elements"));
}

}  // namespace
