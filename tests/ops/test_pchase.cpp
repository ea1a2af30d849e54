// pchase: the chain is one seeded cycle through every slot; every host and OpenCL variant
// ends on the host's index with the host's checksum; records carry ns_per_load; working
// sets that are malformed or larger than the device are refused.
#include "variant_sweep.hpp"

using namespace hetbench;
using namespace hetbench::test;

TEST(Pchase, EveryVariantMatchesTheHostsChase) {
  auto recs = validate_every_variant("pchase", {"128,4096+192,2^20@loads=1,1000,2^16+1"}, {{Precision::S}, 1, 0.0});
  auto n = by_backend(recs);
  EXPECT_GT(n["host"], 0);
  EXPECT_GT(n["opencl"], 0);
  for (const auto& r : recs) {
    ASSERT_TRUE(r.contains("ns_per_load")) << describe(r);
    EXPECT_NEAR(r["ns_per_load"].get<double>(),
                r["timing"]["seconds"]["median"].get<double>() * 1e9 / r["sizes"]["loads"].get<double>(), 1e-9);
  }
}

TEST(Pchase, TheChainIsOneCycleThroughEverySlot) {
  const Op& op = find_op("pchase");
  for (const char* t : {"128", "64*1000", "2^20"}) {
    auto prob = op.make_problem(op.parse_sizes(t).at(0), Precision::S, 17);
    const auto& a = prob->array("next");
    const auto* next = reinterpret_cast<const std::uint32_t*>(a.host.data());
    const std::size_t slots = a.bytes() / 64;
    std::size_t steps = 0;
    std::uint32_t p = 0;
    do {
      p = next[p];
      ASSERT_EQ(p % 16, 0u) << t << ": an index off a slot's first word";
      ++steps;
    } while (p != 0 && steps <= slots);
    EXPECT_EQ(steps, slots) << t << ": the chain must visit every slot once before it returns";
  }
}

// Without @loads a chase visits every slot once (within 2^18 .. 2^22): a fixed count left
// most of a large working set unvisited, and the visited lines then fit in a GPU's L2.
TEST(Pchase, DefaultLoadsVisitEverySlotWithinBounds) {
  const Op& op = find_op("pchase");
  const std::pair<const char*, long long> cases[] = {
      {"4096", 1 << 18}, {"2^24", 1 << 18}, {"2^26", 1 << 20}, {"2^28+64", 1 << 22}, {"2^32", 1 << 22}};
  for (const auto& [token, want] : cases) EXPECT_EQ(op.parse_sizes(token).at(0).at("loads"), want) << token;
  EXPECT_EQ(op.parse_sizes("2^26@loads=7").at(0).at("loads"), 7);
  EXPECT_EQ(op.parse_sizes("2^12,2^26").size(), 2u);
}

TEST(Pchase, RecordsAndCsvCarryNsPerLoad) {
  TempDir out;
  auto r = run_hetbench("run pchase --device host --size 2^16@loads=5000 --reps 2 --out " + out.str());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, testing::HasSubstr("ns/load"));
  std::ifstream csv(only_experiment(out.path()) / "results.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_THAT(header, testing::HasSubstr(",raw_gbs,ns_per_load"));
}

TEST(Pchase, BadWorkingSetsAreRefused) {
  expect_bad_input("run pchase --device host --size 100", "pchase working set 100 bytes is impossible");
  expect_bad_input("run pchase --device host --size 64", "pchase working set 64 bytes is impossible");
  expect_bad_input("run pchase --device host --size 2^35", "working set 34359738368 bytes is impossible");
  expect_bad_input("run pchase --device host --size 4096@loads=0", "pchase loads = 0 is out of range");
  expect_bad_input("run pchase --device host --size 4096@stride=2", "malformed pchase size");
  const Op& op = find_op("pchase");
  const auto s = op.parse_sizes("2^30").at(0);
  EXPECT_THAT(op.device_fit(s, Precision::S, device_with(1ull << 29, 1ull << 29)),
              testing::HasSubstr("working set 1073741824 bytes is larger than the device's memory (536870912 bytes)"));
  EXPECT_THAT(op.device_fit(s, Precision::S, device_with(1ull << 32, 1ull << 29)),
              testing::HasSubstr("larger than the device's largest allocation (536870912 bytes)"));
  EXPECT_EQ(op.device_fit(s, Precision::S, device_with(1ull << 32, 1ull << 30)), "");
}
