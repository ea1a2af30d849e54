// SCAN: every host and OpenCL variant validates in S, D and I32, inclusive and
// exclusive, of x and of its squares (@square), on sizes that are multiples of no
// work-group or tile size; the op's check rejects wrong, shifted and unwritten results;
// bad input gets one clear error.
#include <gtest/gtest.h>

#include <cstring>

#include "hetbench/op.hpp"
#include "variant_sweep.hpp"

using namespace hetbench;

namespace {

const std::vector<std::string> kScanSizes{"1", "2", "33", "4097", "1000003"};

std::vector<std::string> with_kind(const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& s : kScanSizes) out.push_back(s + "@" + kind);
  return out;
}

TEST(Scan, InclusiveVariantsValidate) {
  EXPECT_GT(test::validate_every_variant("scan", with_kind("inclusive"), test::kPrefixSweep).size(), 0u);
}
TEST(Scan, ExclusiveVariantsValidate) {
  EXPECT_GT(test::validate_every_variant("scan", with_kind("exclusive"), test::kPrefixSweep).size(), 0u);
}
TEST(Scan, SquaredInputVariantsValidate) {
  auto sizes = with_kind("square");
  for (const auto& s : with_kind("square@exclusive")) sizes.push_back(s);
  EXPECT_GT(test::validate_every_variant("scan", sizes, test::kPrefixSweep).size(), 0u);
}

// The host's own scan of the problem's x (or of its squares), as the op's output bytes.
template <class T>
Outputs host_scan(const Problem& p, bool exclusive, bool square = false) {
  using A = std::conditional_t<std::is_integral_v<T>, std::uint32_t, T>;
  const auto& x = p.array("x");
  hetbench::Bytes y(x.bytes());
  const auto* in = reinterpret_cast<const A*>(x.host.data());
  auto* out = reinterpret_cast<A*>(y.data());
  A run = 0;
  for (std::size_t i = 0; i < x.count; ++i) {
    if (exclusive) out[i] = run;
    run += square ? in[i] * in[i] : in[i];
    if (!exclusive) out[i] = run;
  }
  return {{"y", y}};
}

template <class T>
void check_catches(Precision prec) {
  const Op& op = find_op("scan");
  for (const bool excl : {false, true}) {
    auto prob = op.make_problem(op.parse_sizes(excl ? "1000@exclusive" : "1000@inclusive").at(0), prec, 7);
    Outputs good = host_scan<T>(*prob, excl);
    EXPECT_TRUE(op.validate(*prob, good).passed()) << name(prec) << " exclusive=" << excl;
    // The other kind of scan: every element off by one whole term.
    EXPECT_FALSE(op.validate(*prob, host_scan<T>(*prob, !excl)).passed()) << name(prec);
    // One element dropped from every prefix after 500: element 500 missing.
    Outputs bad = good;
    auto* y = reinterpret_cast<T*>(bad["y"].data());
    const T x500 = reinterpret_cast<const T*>(prob->array("x").host.data())[500];
    for (std::size_t i = 501; i < 1000; ++i)
      y[i] = static_cast<T>(static_cast<std::conditional_t<std::is_integral_v<T>, std::uint32_t, T>>(y[i]) -
                            static_cast<std::conditional_t<std::is_integral_v<T>, std::uint32_t, T>>(x500));
    EXPECT_FALSE(op.validate(*prob, bad).passed()) << name(prec);
    // One element left unwritten (the engine's poison).
    Outputs unwritten = good;
    std::memset(unwritten["y"].data() + 999 * sizeof(T), 0xFF, sizeof(T));
    const Validation v = op.validate(*prob, unwritten);
    EXPECT_FALSE(v.passed());
    EXPECT_EQ(v.unwritten, 1u);
  }
}

TEST(Scan, CheckCatchesWrongResults) {
  check_catches<float>(Precision::S);
  check_catches<double>(Precision::D);
  check_catches<std::int32_t>(Precision::I32);
}

// @square: the scan of the squares passes, the scan of x itself (what a kernel that
// ignored SQUARE would write) fails, and the records say which input was scanned.
template <class T>
void check_square(Precision prec) {
  const Op& op = find_op("scan");
  for (const bool excl : {false, true}) {
    auto prob = op.make_problem(op.parse_sizes(excl ? "4097@square@exclusive" : "4097@square").at(0), prec, 5);
    EXPECT_EQ(prob->sizes.at("square"), 1);
    EXPECT_EQ(prob->features.at("input"), "square");
    EXPECT_TRUE(op.validate(*prob, host_scan<T>(*prob, excl, true)).passed()) << name(prec) << " exclusive=" << excl;
    EXPECT_FALSE(op.validate(*prob, host_scan<T>(*prob, excl, false)).passed()) << name(prec);
  }
  auto plain = op.make_problem(op.parse_sizes("4097").at(0), prec, 5);
  EXPECT_FALSE(plain->sizes.contains("square"));  // records of plain scans stay as they were
  EXPECT_FALSE(op.validate(*plain, host_scan<T>(*plain, false, true)).passed()) << name(prec);
}

TEST(Scan, SquaredInputCheckCatchesTheUnsquaredScan) {
  check_square<float>(Precision::S);
  check_square<double>(Precision::D);
  check_square<std::int32_t>(Precision::I32);
}

// I32 inputs span the whole range: negative values, and prefix sums that wrap.
TEST(Scan, Int32InputsWrap) {
  const Op& op = find_op("scan");
  auto prob = op.make_problem(op.parse_sizes("1000").at(0), Precision::I32, 11);
  const auto* x = reinterpret_cast<const std::int32_t*>(prob->array("x").host.data());
  long long neg = 0, zero = 0, exact = 0, wraps = 0;
  for (std::size_t i = 0; i < 1000; ++i) {
    neg += x[i] < 0;
    zero += x[i] == 0;
    exact += x[i];
    wraps += exact != static_cast<std::int32_t>(static_cast<std::uint32_t>(exact));
  }
  EXPECT_GT(neg, 300);
  EXPECT_EQ(zero, 0);
  EXPECT_GT(wraps, 100);
}

TEST(Scan, BadInput) {
  test::expect_bad_input("run scan --device host --size 100@sideways",
                         "unknown scan kind or input 'sideways' in size '100@sideways'");
  test::expect_bad_input("run scan --device host --precision DF --size 100", "op scan has no DF precision");
  test::expect_bad_input("run dot --device host --precision I32 --size 100", "op dot has no I32 precision");
}

}  // namespace
