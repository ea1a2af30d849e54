// Op transfer (the host link): every direction and host memory kind validated through the
// real runner on OpenCL (PoCL here), the copy to a second device skipped with its reason
// where a backend has no peer, bad sizes refused, the PCIe practical-rate model; CUDA runs
// where a GPU is.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/nvidia/pcie_link.hpp"
#include "engine/record/results.hpp"
#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "test_util.hpp"

namespace {

using namespace hetbench;

// Sizes that are not multiples of any word or page size are among them (1000003 is prime).
const std::vector<std::string> kTransferSizes = {"1024", "1000003", "2^20"};

std::vector<nlohmann::json> run_transfer(const std::string& variant, const std::string& device,
                                         const std::string& suffix, const std::vector<std::string>& sizes = kTransferSizes) {
  RunSpec r;
  r.op = "transfer";
  r.variants = {variant};
  r.devices = device;
  for (const auto& s : sizes) r.sizes.push_back(s + suffix);
  r.precisions = {Precision::S};
  r.reps = 3;
  r.warmup = 1;
  return test::run_points(r);
}

std::shared_ptr<Device> first_of(BackendKind kind, std::string& why) {
  auto& b = backend(kind);
  why = b.unavailable_reason();
  if (!why.empty()) return nullptr;
  for (const auto& d : b.devices()) return d;
  why = "no device";
  return nullptr;
}

void expect_all_valid(const std::string& variant, const Device& dev) {
  for (const std::string dir : {"h2d", "d2h", "bidir", "d2d"})
    for (const char* mem : {"pageable", "pinned"}) {
      if (dir == "d2d" && std::string(mem) == "pinned") continue;  // no host memory in it
      const auto recs = run_transfer(variant, dev.id(), fmt::format("@{}@{}", dir, mem));
      ASSERT_EQ(recs.size(), kTransferSizes.size()) << dir << " " << mem;
      for (const auto& r : recs) {
        EXPECT_EQ(r["status"], "ok") << test::describe(r);
        const auto bytes = r["sizes"]["bytes"].get<double>();
        EXPECT_EQ(r["validation"]["checked"].get<double>(), dir == "bidir" ? 2 * bytes : bytes)
            << test::describe(r);
        // bandwidthTest's accounting: bidir moves the bytes twice, d2d reads and writes them.
        EXPECT_EQ(r["min_bytes"].get<double>(), dir == "bidir" || dir == "d2d" ? 2 * bytes : bytes)
            << test::describe(r);
        EXPECT_EQ(r["features"]["direction"], dir);
        EXPECT_EQ(r["features"]["memory"], mem);
        EXPECT_GT(r["gbs"].get<double>(), 0) << test::describe(r);
      }
    }
}

TEST(Transfer, OpenClEveryDirectionAndMemoryValidates) {
  std::string why;
  auto dev = first_of(BackendKind::OpenCL, why);
  if (!dev) GTEST_SKIP() << why;
  expect_all_valid("opencl/transfer/enqueue", *dev);
}

TEST(Transfer, CudaEveryDirectionAndMemoryValidates) {
  std::string why;
  auto dev = first_of(BackendKind::Cuda, why);
  if (!dev) GTEST_SKIP() << why;
  expect_all_valid("cuda/transfer/memcpy", *dev);
}

// With one device (or one context per device, as on OpenCL) the copy to a second device
// is skipped, saying why and naming the variant (the reason once read "fails for  on").
TEST(Transfer, PeerCopySkippedWithoutPeer) {
  std::string why;
  auto dev = first_of(BackendKind::OpenCL, why);
  if (!dev) GTEST_SKIP() << why;
  ASSERT_EQ(dev->info().peers, 0);
  for (const auto& r : run_transfer("opencl/transfer/enqueue", dev->id(), "@peer", {"4096"})) {
    EXPECT_EQ(r["status"], "skipped") << test::describe(r);
    EXPECT_NE(r.dump().find("constraint 'peer == 0 || peers >= 1' fails for opencl/transfer/enqueue on " + dev->id()),
              std::string::npos)
        << r.dump();
  }
}

TEST(Transfer, CudaPeerCopy) {
  std::string why;
  auto dev = first_of(BackendKind::Cuda, why);
  if (!dev) GTEST_SKIP() << why;
  for (const auto& r : run_transfer("cuda/transfer/memcpy", dev->id(), "@peer")) {
    if (dev->info().peers == 0) {
      EXPECT_EQ(r["status"], "skipped") << test::describe(r);
    } else {
      EXPECT_EQ(r["status"], "ok") << test::describe(r);
    }
  }
}

// `run transfer` without --precision measures the op's one precision (S) instead of
// refusing D; the table names the direction and memory instead of 0/1 flags.
TEST(Transfer, RunWithoutPrecisionAndReadableSizes) {
  std::string why;
  auto dev = first_of(BackendKind::OpenCL, why);
  if (!dev) GTEST_SKIP() << why;
  test::TempDir d;
  const auto r = test::run_hetbench("run transfer --device " + dev->id() + " --size 4096@dtod --reps 2 --out " + d.str());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("bytes=4096,direction=d2d,memory=pageable"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("bidir=0"), std::string::npos) << r.output;
  const auto recs = read_results(test::only_experiment(d.path()));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0]["precision"], "S");
  EXPECT_EQ(recs[0]["status"], "ok") << recs[0].dump();
}

// The host device has no host link: no transfer variant runs there, and its calls say so.
TEST(Transfer, HostHasNoHostLink) {
  auto host = resolve_devices("host").front();
  try {
    host->alloc_host(64, HostMemoryKind::Pinned);
    FAIL() << "the host device allocated host-link memory";
  } catch (const PointError& e) {
    EXPECT_NE(std::string(e.what()).find("the host has no host link"), std::string::npos) << e.what();
  }
  for (const auto& v : variants_for("transfer")) EXPECT_NE(v->backend, BackendKind::Host) << v->id();
}

TEST(Transfer, SizeTokens) {
  const Op& op = find_op("transfer");
  auto s = op.parse_sizes("2^20@bidir@pinned");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].at("bytes"), 1 << 20);
  EXPECT_EQ(op.signature().axis("direction")->value(s[0]), "bidir");
  EXPECT_EQ(op.signature().axis("memory")->value(s[0]), "pinned");
  // bandwidthTest's spellings of its three directions.
  for (auto [alias, dir] : {std::pair{"htod", "h2d"}, {"dtoh", "d2h"}, {"dtod", "d2d"}})
    EXPECT_EQ(op.signature().axis("direction")->value(op.parse_sizes(std::string("64@") + alias)[0]), dir) << alias;
  s = op.parse_sizes("1024,4096");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(op.signature().axis("direction")->value(s[1]), "h2d");
  EXPECT_EQ(op.signature().axis("memory")->value(s[1]), "pageable");
}

TEST(Transfer, BadSizesNameTheValue) {
  const Op& op = find_op("transfer");
  auto msg = [&](const std::string& tok) {
    try {
      op.parse_sizes(tok);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("1024@sideways").find("'sideways'"), std::string::npos) << msg("1024@sideways");
  EXPECT_NE(msg("1024@pinned@locked").find("'locked'"), std::string::npos);
  EXPECT_NE(msg("0@h2d").find("bytes = 0"), std::string::npos);
  // 2^60 bytes exceeds any host's memory.
  EXPECT_NE(msg("2^60").find("bytes = 1152921504606846976"), std::string::npos) << msg("2^60");
}

// A buffer larger than the device allows is refused before anything runs (exit 2).
// PoCL sizes its memory from what the host has free when a process starts, so the limit
// this process saw can differ from the child's (on the GPU host it grew between the two and
// the child ran the point). POCL_MEMORY_LIMIT pins it, and the limit is read in a child
// with the same environment.
TEST(Transfer, SizeAboveLargestAllocationIsBadInput) {
  std::string why;
  auto dev = first_of(BackendKind::OpenCL, why);
  if (!dev) GTEST_SKIP() << why;
  const std::string env = "POCL_MEMORY_LIMIT=2";
  const auto listed = test::run_hetbench("devices --json", env);
  ASSERT_EQ(listed.status, 0) << listed.output;
  std::uint64_t max_alloc = 0, global = 0;
  const auto j = nlohmann::json::parse(listed.output.substr(listed.output.find('{')));
  for (const auto& d : j.at("devices"))
    if (d.at("id") == dev->id()) {
      max_alloc = d.at("max_alloc_bytes").get<std::uint64_t>();
      global = d.at("global_mem_bytes").get<std::uint64_t>();
    }
  ASSERT_GT(max_alloc, 0u) << dev->id() << " not in " << listed.output;
  if (2 * (max_alloc + 1) > global) GTEST_SKIP() << "max_alloc too close to global memory";
  const auto n = std::to_string(max_alloc + 1);
  // Where the host cannot hold the copies either, the size check says so instead: both name the value.
  const auto r = test::run_hetbench("run transfer --variant opencl/transfer/enqueue --device " + dev->id() +
                                        " --precision S --size " + n + " --reps 1",
                                    env);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(n), std::string::npos) << r.output;
  // (NVIDIA's OpenCL on an H200 allows 35 GB at once: five copies exceed a 128 GB host.)
  const bool device_says = r.output.find("largest allocation") != std::string::npos;
  const bool host_says = r.output.find("copies of it in host memory") != std::string::npos;
  EXPECT_TRUE(device_says || host_says) << r.output;
}

// PCIe 5.0 x16: 32 GT/s x 16 x 128/130 / 8 = 63.015 GB/s encoded, x 0.9 = 56.71 GB/s.
TEST(Transfer, PciePracticalRate) {
  EXPECT_NEAR(*pcie_practical_gbs(5, 16), 32.0 * 16 * 128 / 130 / 8 * 0.9, 1e-9);
  EXPECT_NEAR(*pcie_practical_gbs(3, 16), 8.0 * 16 * 128 / 130 / 8 * 0.9, 1e-9);
  EXPECT_NEAR(*pcie_practical_gbs(2, 8), 5.0 * 8 * 0.8 / 8 * 0.9, 1e-9);
  EXPECT_FALSE(pcie_practical_gbs(9, 16));
  EXPECT_FALSE(pcie_practical_gbs(4, 0));
}

}  // namespace
