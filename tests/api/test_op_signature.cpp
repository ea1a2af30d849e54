// Op signatures: the static operands and axes that metadata and `list` read, and the
// check every problem goes through.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetbench/error.hpp"
#include "hetbench/op.hpp"

using namespace hetbench;
using testing::HasSubstr;

namespace {

std::string error_of(const Op& op, const Sizes& s, Precision p = Precision::S) {
  try {
    op.make_problem(s, p, 1);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(OpSignature, ChoicesAreStoredUnderTheirKeys) {
  const Op& gemm = find_op("gemm");
  const OpSignature& sig = gemm.signature();
  const Sizes s = gemm.parse_sizes("8@TN@d64").front();
  EXPECT_EQ(s.at("ta"), 1);
  EXPECT_EQ(s.at("tb"), 0);
  EXPECT_EQ(s.at("d64"), 1);
  EXPECT_EQ(s.at("soa"), 0);
  EXPECT_FALSE(s.count("plain"));  // optional and not named: not recorded
  EXPECT_EQ(sig.axis("storage")->value(s), "d64");
  EXPECT_EQ(sig.axis("ta")->value(s), "T");
  EXPECT_EQ(sig.axis("form")->value(s), "scaled");
  EXPECT_EQ(gemm.parse_sizes("8@plain").front().at("plain"), 1);
  EXPECT_THROW(gemm.parse_sizes("8@plain@PLAIN"), Error);
  EXPECT_THROW(gemm.parse_sizes("8@NT@TN"), Error);
  EXPECT_EQ(find_op("axpy").parse_sizes("8@SoA").front().at("soa"), 1);
  EXPECT_EQ(find_op("copy").parse_sizes("8").front(), (Sizes{{"n", 8}}));
}

TEST(OpSignature, ProblemsAreCheckedAgainstIt) {
  const Op& gemm = find_op("gemm");
  EXPECT_THAT(error_of(gemm, {{"m", 4}, {"n", 4}, {"k", 4}, {"ta", 2}}), HasSubstr("'ta' = 2 is not a value of ta"));
  EXPECT_THAT(error_of(gemm, {{"m", 4}, {"n", 4}, {"k", 4}, {"soa", 1}, {"d64", 1}}), HasSubstr("more than one value"));
  EXPECT_THAT(error_of(gemm, {{"m", 4}, {"n", 4}}), HasSubstr("dimension 'k' is missing"));
  EXPECT_THAT(error_of(find_op("copy"), {{"n", 4}, {"q", 1}}), HasSubstr("unknown size key 'q'"));
  EXPECT_THAT(error_of(gemm, gemm.parse_sizes("4@plain").front(), Precision::DF), HasSubstr("is for S and D"));
  // Every op's problems hold exactly its signature's operands (make_problem checks).
  for (const Op* op : all_ops()) {
    if (!op->input_kind().empty()) continue;
    // The smallest problem each op takes (a pointer chase needs two 64-byte slots).
    // (Ops declared by metadata that other tests of this process read have one problem.)
    const std::string small = !op->fixed_size().empty() ? op->fixed_size() : op->name() == "pchase" ? "128" : "3";
    for (Precision p : op->precisions()) EXPECT_EQ(error_of(*op, op->parse_sizes(small).front(), p), "") << op->name();
  }
  auto spmv = find_op("spmv").parse_input("gen:poisson2d:n=3", 1).front();
  EXPECT_EQ(error_of(find_op("spmv"), spmv, Precision::D), "");
}

TEST(OpSignature, PlainGemmIsAlphaOneBetaZeroWithCWrittenOnly) {
  const Op& gemm = find_op("gemm");
  auto prob = gemm.make_problem(gemm.parse_sizes("5@NT@plain").front(), Precision::D, 3);
  EXPECT_EQ(prob->scalar("alpha")->value, 1.0);
  EXPECT_EQ(prob->scalar("beta")->value, 0.0);
  EXPECT_EQ(prob->array("C").access, Access::Out);
  const auto& A = prob->array("A").host;
  const auto& B = prob->array("B").host;
  auto a = reinterpret_cast<const double*>(A.data()), b = reinterpret_cast<const double*>(B.data());
  // C = A * B^T computed in order: within gamma_k, so it passes; one product left out fails.
  for (bool drop : {false, true}) {
    std::vector<double> c(25);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j)
        for (int p = 0; p < (drop && i == 2 && j == 3 ? 4 : 5); ++p) c[i * 5 + j] += a[i * 5 + p] * b[j * 5 + p];
    Outputs out{{"C", hetbench::Bytes(reinterpret_cast<unsigned char*>(c.data()),
                                                 reinterpret_cast<unsigned char*>(c.data() + 25))}};
    auto v = gemm.validate(*prob, out);
    EXPECT_EQ(v.passed(), !drop) << v.max_ratio;
    EXPECT_THAT(v.bound, HasSubstr("gamma_k"));
  }
}
