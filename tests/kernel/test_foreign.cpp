// GEMMbench's Lift-generated entries ({kernel_name, global_size, local_size,
// argument_order} beside a .cl of the same base name) run unmodified: C = A*B^T with no
// alpha and beta, validated as gemm @NT@plain.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;

namespace {

// Lift's shape: a kernel named KERNEL, 2x2 elements of C per work-item over
// (n/2, m/2, 1), A (m x k) and B (n x k) read along k, int sizes in the order k, m, n.
// `last` is the last k the sum includes: K - 1, or K - 2 for a wrong kernel.
std::string lift_kernel(const char* real, const char* last) {
  return fmt::format(R"CL(
{0}
typedef struct {{ {1}4 _0; }} Tuple_unused;
kernel void KERNEL(const global {1}* restrict v__89, const global {1}* restrict v__90, global {1}* v__104,
                   int v_K_2, int v_M_1, int v_N_0) {{
  int g0 = get_global_id(0), g1 = get_global_id(1);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c) {{
      {1} acc = 0;
      for (int p = 0; p <= {2}; ++p) acc += v__89[(2 * g0 + r) * v_K_2 + p] * v__90[(2 * g1 + c) * v_K_2 + p];
      v__104[(2 * g0 + r) * v_N_0 + 2 * g1 + c] = acc;
    }}
}}
)CL",
                     std::string(real) == "double" ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable" : "", real, last);
}

const char* kEntry = R"({"kernel_name": "KERNEL", "global_size": ["n/2", "m/2", "1"], "local_size": ["?", "?", "1"],
  "argument_order": ["a", "b", "c", "k", "m", "n"]})";

std::vector<nlohmann::json> run_entry(const TempDir& d, const std::string& entry, const std::string& args,
                                      int expect_status) {
  auto r = run_hetbench("run gemm --kernel " + (d.path() / entry).string() + " --device opencl:0:0 " + args +
                        " --reps 1 --out " + (d.path() / "out").string() + " --seed " + std::to_string(fresh_seed()));
  EXPECT_EQ(r.status, expect_status) << r.output;
  return hetbench::read_results(only_experiment(d.path() / "out"));
}

}  // namespace

TEST(LiftEntry, RunsUnmodifiedWithItsPrecisionAndTunableLocalSize) {
  for (const char* real : {"float", "double"}) {
    TempDir d;
    write_text(d.path() / "0c0ea95e.cl", lift_kernel(real, "v_K_2 - 1"));
    write_text(d.path() / "0c0ea95e.json", kEntry);
    auto recs = run_entry(d, "0c0ea95e.json", "--size 16,36 --lws 1,2", 0);
    ASSERT_EQ(recs.size(), 2u);
    for (const auto& rec : recs) {
      EXPECT_EQ(rec["status"], "ok") << describe(rec);
      EXPECT_EQ(rec["precision"], std::string(real) == "float" ? "S" : "D");
      EXPECT_EQ(rec["sizes"]["tb"], 1);
      EXPECT_EQ(rec["sizes"]["plain"], 1);
      EXPECT_EQ(rec["params"]["LWS0"], 1);
      EXPECT_EQ(rec["params"]["LWS1"], 2) << describe(rec);
      EXPECT_THAT(rec["validation"]["bound"].get<std::string>(), HasSubstr("gamma_k"));
    }
  }
}

TEST(LiftEntry, WrongKernelFailsValidation) {
  TempDir d;
  write_text(d.path() / "bad.cl", lift_kernel("float", "v_K_2 - 2"));  // drops the last product
  write_text(d.path() / "bad.json", kEntry);
  auto recs = run_entry(d, "bad.json", "--size 32", 1);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0]["status"], "failed") << describe(recs[0]);
  EXPECT_GT(recs[0]["validation"]["max_err_over_bound"].get<double>(), 1.0);
}

TEST(LiftEntry, MalformedEntriesNameFileAndKey) {
  TempDir d;
  write_text(d.path() / "e.cl", lift_kernel("float", "v_K_2 - 1"));
  auto expect_error = [&](const std::string& json, const std::string& args, const std::string& what) {
    write_text(d.path() / "e.json", json);
    auto r = run_hetbench("run gemm --kernel " + (d.path() / "e.json").string() + " --size 32 " + args + " --out " +
                          (d.path() / "out").string());
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(what)) << json;
  };
  const std::string sizes = R"("global_size": ["n/2", "m/2", "1"], "local_size": ["?", "?", "1"])";
  expect_error(R"({"kernel_name": "KERNEL", )" + sizes + "}", "", "e.json: key 'argument_order': missing");
  expect_error(R"({"kernel_name": "KERNEL", )" + sizes + R"(, "argument_order": ["a", "b", "x", "k", "m", "n"]})", "",
               "e.json: key 'argument_order[2]': expected one of a, b, c, k, m, n");
  expect_error(R"({"kernel_name": "KERNEL", )" + sizes + R"(, "argument_order": ["a", "b", "c", "k", "m"]})", "",
               "e.json: key 'argument_order': names 5 arguments");
  expect_error(R"({"kernel_name": "KERNEL", )" + sizes + R"(, "argument_order": ["k", "b", "c", "a", "m", "n"]})", "",
               "e.json: key 'argument_order[0]': 'k' is a size");
  expect_error(R"({"kernel_name": "OTHER", )" + sizes + R"(, "argument_order": ["a", "b", "c", "k", "m", "n"]})", "",
               "e.json: key 'kernel_name': no kernel 'OTHER'");
  expect_error(R"({"kernel_name": "KERNEL", "global_size": ["n/2", "q"], "local_size": ["?", "?"],
                  "argument_order": ["a", "b", "c", "k", "m", "n"]})",
               "", "e.json: key 'global_size[1]': unknown name 'q'");
  expect_error(R"({"kernel_name": "KERNEL", "global_size": ["n/2", "m/2", "1"], "local_size": ["?", "?"],
                  "argument_order": ["a", "b", "c", "k", "m", "n"]})",
               "", "e.json: key 'local_size': must have as many dimensions");
  expect_error(std::string(kEntry), "--size 33", "size '33': global_size[0] 'n/2' is 16.5");
  expect_error(std::string(kEntry), "--lws 4", "--lws '4': Lift entry");
  expect_error(std::string(kEntry), "--size 32@NN", "asks for layout NN");
  expect_error(R"({"kernel_name": "KERNEL", "global": 1})", "", "e.json: key 'global': unknown key in a Lift entry");
}
