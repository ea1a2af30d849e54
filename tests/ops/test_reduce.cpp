// REDUCE: every host and OpenCL variant validates in S, D and I32 on sizes that are
// multiples of no work-group size; the check rejects a dropped element; bad input.
#include <gtest/gtest.h>

#include <cstring>

#include "hetbench/op.hpp"
#include "variant_sweep.hpp"

using namespace hetbench;

namespace {

TEST(Reduce, VariantsValidate) {
  EXPECT_GT(test::validate_every_variant("reduce", {"1", "2", "33", "4097", "1000003"}, test::kPrefixSweep).size(), 0u);
}

template <class T>
void check_catches(Precision prec, const char* size) {
  using A = std::conditional_t<std::is_integral_v<T>, std::uint32_t, T>;
  const Op& op = find_op("reduce");
  auto prob = op.make_problem(op.parse_sizes(size).at(0), prec, 5);
  const auto& x = prob->array("x");
  const auto* in = reinterpret_cast<const A*>(x.host.data());
  A s = 0;
  for (std::size_t i = 0; i < x.count; ++i) s += in[i];
  auto out = [](A v) {
    hetbench::Bytes b(sizeof(A));
    std::memcpy(b.data(), &v, sizeof(A));
    return Outputs{{"result", b}};
  };
  EXPECT_TRUE(op.validate(*prob, out(s)).passed()) << name(prec) << " " << size;
  EXPECT_FALSE(op.validate(*prob, out(static_cast<A>(s - in[x.count / 2]))).passed()) << name(prec) << " " << size;
  EXPECT_EQ(op.validate(*prob, Outputs{{"result", hetbench::Bytes(sizeof(A), 0xFF)}}).unwritten,
            std::is_integral_v<T> && s == A(-1) ? 0u : 1u);
}

TEST(Reduce, CheckCatchesADroppedElement) {
  for (const char* n : {"7", "100"}) {
    check_catches<float>(Precision::S, n);
    check_catches<double>(Precision::D, n);
    check_catches<std::int32_t>(Precision::I32, n);
  }
  check_catches<std::int32_t>(Precision::I32, "1000003");
}

TEST(Reduce, BadInput) {
  test::expect_bad_input("run reduce --device host --precision DD --size 100", "op reduce has no DD precision");
  test::expect_bad_input("run reduce --device host --size 100@exclusive", "malformed size '100@exclusive'");
}

}  // namespace
