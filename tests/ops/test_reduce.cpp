// REDUCE: every host and OpenCL variant validates in S, D and I32 in every kind (sum,
// sum of squares, norm2 in S and D, max) on sizes that are multiples of no work-group
// size; the check rejects a dropped element and an unwritten result; bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "hetbench/op.hpp"
#include "variant_sweep.hpp"

using namespace hetbench;

namespace {

std::vector<std::string> sizes_of(const std::string& kind) {
  std::vector<std::string> out;
  for (const char* n : {"1", "2", "33", "4097", "1000003"}) out.push_back(std::string(n) + (kind.empty() ? "" : "@" + kind));
  return out;
}

TEST(Reduce, VariantsValidate) { EXPECT_GT(test::validate_every_variant("reduce", sizes_of(""), test::kPrefixSweep).size(), 0u); }
TEST(Reduce, SumOfSquaresVariantsValidate) {
  EXPECT_GT(test::validate_every_variant("reduce", sizes_of("sumsq"), test::kPrefixSweep).size(), 0u);
}
TEST(Reduce, Norm2VariantsValidate) {
  test::Sweep how = test::kPrefixSweep;
  how.precisions = {Precision::S, Precision::D};
  EXPECT_GT(test::validate_every_variant("reduce", sizes_of("norm2"), how).size(), 0u);
}
// A maximum is exact: every variant's result must equal the reference bit for bit.
TEST(Reduce, MaxVariantsValidateExactly) {
  test::Sweep how = test::kPrefixSweep;
  how.max_err_over_bound = 0;
  EXPECT_GT(test::validate_every_variant("reduce", sizes_of("max"), how).size(), 0u);
}

// The host's own result of `kind` over x, optionally without element `drop`.
template <class T, class A>
A host_reduce(const Problem& p, const std::string& kind, std::size_t drop) {
  const auto& x = p.array("x");
  const auto* in = reinterpret_cast<const A*>(x.host.data());
  const auto* signed_in = reinterpret_cast<const T*>(x.host.data());
  if (kind == "max") {
    std::size_t best = drop == 0 ? 1 : 0;
    for (std::size_t i = 0; i < x.count; ++i)
      if (i != drop && signed_in[i] > signed_in[best]) best = i;
    return in[best];
  }
  A s = 0;
  for (std::size_t i = 0; i < x.count; ++i)
    if (i != drop) s += kind == "sum" ? in[i] : static_cast<A>(in[i] * in[i]);
  if constexpr (std::is_floating_point_v<A>)
    if (kind == "norm2") return std::sqrt(s);
  return s;
}

template <class T>
void check_catches(Precision prec, const std::string& kind, const char* size) {
  using A = std::conditional_t<std::is_integral_v<T>, std::uint32_t, T>;
  const Op& op = find_op("reduce");
  auto prob = op.make_problem(op.parse_sizes(std::string(size) + "@" + kind).at(0), prec, 5);
  const auto& x = prob->array("x");
  auto out = [](A v) {
    hetbench::Bytes b(sizeof(A));
    std::memcpy(b.data(), &v, sizeof(A));
    return Outputs{{"result", b}};
  };
  const std::string what = std::string(name(prec)) + " " + kind + " " + size;
  const A good = host_reduce<T, A>(*prob, kind, x.count);
  EXPECT_TRUE(op.validate(*prob, out(good)).passed()) << what;
  // Drop the element that decides the result (the maximum) or one in the middle.
  std::size_t drop = x.count / 2;
  if (kind == "max") {
    const auto* in = reinterpret_cast<const T*>(x.host.data());
    drop = static_cast<std::size_t>(std::max_element(in, in + x.count) - in);
  }
  EXPECT_FALSE(op.validate(*prob, out(host_reduce<T, A>(*prob, kind, drop))).passed()) << what;
  EXPECT_EQ(op.validate(*prob, Outputs{{"result", hetbench::Bytes(sizeof(A), 0xFF)}}).unwritten,
            std::is_integral_v<T> && good == A(-1) ? 0u : 1u)
      << what;
}

TEST(Reduce, CheckCatchesADroppedElement) {
  for (const std::string kind : {"sum", "sumsq", "norm2", "max"})
    for (const char* n : {"7", "100"}) {
      check_catches<float>(Precision::S, kind, n);
      check_catches<double>(Precision::D, kind, n);
      if (kind != "norm2") check_catches<std::int32_t>(Precision::I32, kind, n);
    }
  check_catches<std::int32_t>(Precision::I32, "sum", "1000003");
  check_catches<std::int32_t>(Precision::I32, "max", "1000003");
}

// Records of plain sums stay as they were (no kind key); a named kind is recorded.
TEST(Reduce, KindIsRecordedOnlyWhenNamed) {
  const Op& op = find_op("reduce");
  EXPECT_FALSE(op.parse_sizes("100").at(0).contains("kind"));
  EXPECT_EQ(op.parse_sizes("100@max").at(0).at("kind"), 3);
  EXPECT_EQ(op.parse_sizes("100@sum").at(0).at("kind"), 0);
}

TEST(Reduce, BadInput) {
  test::expect_bad_input("run reduce --device host --precision DD --size 100", "op reduce has no DD precision");
  test::expect_bad_input("run reduce --device host --size 100@exclusive",
                         "unknown reduce kind 'exclusive' in size '100@exclusive': expected sum, sumsq, norm2 or max");
  test::expect_bad_input("run reduce --device host --precision I32 --size 100@norm2",
                         "reduce I32 at kind=2,n=100: @norm2 has no I32 version");
}

}  // namespace
