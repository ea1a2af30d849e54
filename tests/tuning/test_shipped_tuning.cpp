// The tuned entries shipped with hetbench (tuned/): read as a layer beneath the user's
// database, used only near their campaign's problems, named in param_source, and kept
// current with the kernels (a kernel edited without a refreshed campaign fails here).
// Also the metadata "candidates" that the shape model ranks and tune's space follows.
#include <fstream>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/plan/plan_params.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"
#include "tuning/shipped.hpp"

namespace hetbench {
namespace {

using testing::HasSubstr;
using namespace tuning;

DeviceIdentity h200() {
  DeviceIdentity d;
  d.backend = BackendKind::Cuda;
  d.name = "NVIDIA H200";
  d.vendor = "NVIDIA";
  d.driver = "580";
  d.version = "9.0";
  d.arch = "sm_90";
  return d;
}

TuningEntry gemm_entry(long long m, long long n, long long k, long long bm) {
  TuningEntry e;
  e.device = h200();
  e.variant_id = "cuda/gemm/regblock";
  e.variant_hash = "h1";
  e.precision = Precision::S;
  e.storage = "form=scaled;ta=N;tb=N";
  e.problem = classify_features("gemm", {{"m", m}, {"n", n}, {"k", k}});
  e.params = {{"BM", bm}};
  e.rate = 1000;
  e.unit = "GFLOP/s";
  return e;
}

LookupQuery gemm_query(long long m, long long n, long long k) {
  return LookupQuery{h200(), {{"cuda/gemm/regblock", "h1"}}, Precision::S, "form=scaled;ta=N;tb=N",
                     classify_features("gemm", {{"m", m}, {"n", n}, {"k", k}})};
}

void write_export(const std::filesystem::path& f, const std::vector<TuningEntry>& es) {
  nlohmann::json j = {{"hetbench_tuning_db", 1}, {"entries", nlohmann::json::array()}};
  for (const auto& e : es) j["entries"].push_back(to_json(e));
  std::ofstream(f) << j.dump(2);
}

TEST(ShippedTuning, UserEntriesWinAndShippedOnesServeOnlyTheirOwnProblems) {
  test::TempDir tmp;
  const auto dir = tmp.path() / "tuned";
  std::filesystem::create_directories(dir);
  write_export(dir / "b.json", {gemm_entry(4096, 4096, 4096, 128)});
  write_export(dir / "a.json", {gemm_entry(256, 256, 16384, 32), gemm_entry(1024, 1024, 1024, 64)});
  auto shipped = read_shipped(dir.string());
  ASSERT_EQ(shipped.size(), 3u);
  EXPECT_EQ(shipped[0].file, "a.json");  // files in name order, ids 1.. across them
  EXPECT_EQ(shipped[2].entry.id, 3);
  LayeredLookup only_shipped(nullptr, shipped);
  auto hit = only_shipped.lookup(gemm_query(256, 256, 16384));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->entry.params.at("BM"), 32);
  EXPECT_EQ(describe(*hit), "shipped a.json:1 same device, distance 0");
  hit = only_shipped.lookup(gemm_query(4096, 4096, 4032));  // within 2 %: the campaign's shape
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->layer, "shipped b.json");
  // A neighbour the campaign did not measure is the shape model's, not the entry's.
  EXPECT_FALSE(only_shipped.lookup(gemm_query(2048, 4096, 4096)));
  // Another architecture of the vendor finds nothing shipped: the model is the better guess.
  auto other = gemm_query(256, 256, 16384);
  other.device.name = "NVIDIA A100";
  other.device.arch = "sm_80";
  EXPECT_FALSE(only_shipped.lookup(other));
  other.device.arch = "sm_90";  // the architecture's other parts: yes
  ASSERT_TRUE(only_shipped.lookup(other));
  EXPECT_EQ(only_shipped.lookup(other)->level, Fallback::SameArch);
  // A changed kernel (another hash) finds nothing shipped.
  auto q = gemm_query(256, 256, 16384);
  q.variants[0].hash = "h2";
  EXPECT_FALSE(only_shipped.lookup(q));
  // The user's database wins where it has an entry in reach.
  auto user = std::make_unique<TuningDb>(tmp.path() / "user.db");
  user->put(gemm_entry(256, 256, 16384, 64));
  LayeredLookup both(std::move(user), shipped);
  hit = both.lookup(gemm_query(256, 256, 16384));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->entry.params.at("BM"), 64);
  EXPECT_EQ(describe(*hit), "db:1 same device, distance 0");
  EXPECT_EQ(both.lookup(gemm_query(1024, 1024, 1024))->layer, "shipped a.json");
}

TEST(ShippedTuning, AMalformedFileIsOneErrorNamingIt) {
  test::TempDir tmp;
  std::ofstream(tmp.path() / "x.json") << R"({"entries": [{"variant_id": 3}]})";
  EXPECT_THAT([&] { read_shipped(tmp.str()); }, testing::ThrowsMessage<Error>(HasSubstr("x.json entries[0]")));
  std::ofstream(tmp.path() / "x.json") << R"({"hetbench_tuning_db": 1})";
  EXPECT_THAT([&] { read_shipped(tmp.str()); }, testing::ThrowsMessage<Error>(HasSubstr("x.json: key 'entries'")));
}

// Every shipped entry's variant is loaded and unchanged since its campaign: a kernel or
// metadata edit must come with a refreshed campaign (`hetbench db ship`) or a reason.
TEST(ShippedTuning, ShippedEntriesAreCurrent) {
  const auto shipped = read_shipped(data_dir("tuned"));
  ASSERT_FALSE(shipped.empty()) << "tuned/ holds no entries";
  std::map<std::string, std::string> current;
  for (const auto& v : all_variants()) current[v->id()] = variant_hash(*v);
  for (const auto& s : shipped) {
    SCOPED_TRACE(fmt::format("{} entry {}: {} {} {}", s.file, s.entry.id, s.entry.variant_id, name(s.entry.precision),
                             s.entry.problem.label));
    ASSERT_TRUE(current.count(s.entry.variant_id)) << "variant not loaded";
    EXPECT_EQ(s.entry.variant_hash, current.at(s.entry.variant_id))
        << "stale: the kernel changed since the campaign (hash now " << current.at(s.entry.variant_id)
        << "); run hetbench db ship bench/tuned/<device>.json";
  }
}

std::shared_ptr<Variant> cuda_variant(const std::string& op, const std::string& name) {
  for (const auto& v : all_variants())
    if (v->backend == BackendKind::Cuda && v->op == op && v->name == name) return v;
  return nullptr;
}

TEST(Candidates, TuneSpaceTakesTheCandidatesUnlessOneOfTheirParametersIsGiven) {
  const auto rb = cuda_variant("gemm", "regblock");
  ASSERT_TRUE(rb);
  ASSERT_EQ(rb->candidates.size(), 8u);
  const std::map<std::string, std::vector<long long>> fixed{{"BK", {16}}, {"MINB", {1}}, {"GROUP", {8}}};
  const auto sets = param_sets(*rb, fixed, true);
  EXPECT_EQ(sets.size(), 8u * rb->param("SPLITK")->values.size());
  for (const auto& pv : sets) {
    bool is_candidate = false;
    for (const auto& c : rb->candidates) {
      bool same = true;
      for (const auto& [k, x] : c) same &= pv.at(k) == x;
      is_candidate |= same;
    }
    EXPECT_TRUE(is_candidate) << format_params(pv);
  }
  auto given = fixed;
  given["BM"] = {32, 64};  // one of theirs given: the product again
  EXPECT_GT(param_sets(*rb, given, true).size(), 8u * rb->param("SPLITK")->values.size() * 2);
  EXPECT_EQ(param_sets(*rb, fixed, false).size(), 1u);  // run: the defaults, as before
}

TEST(Candidates, BadCandidatesAreOneErrorNamingTheKey) {
  auto j = nlohmann::ordered_json::parse(R"({"name": "t", "op": "gemm", "source": "regblock.cu", "precisions": ["S"],
    "params": {"BM": {"values": [32, 64], "default": 64}}, "entry": "gemm_regblock",
    "args": ["m", "n", "k", "alpha", "A", "B", "beta", "C"], "global": "n", "local": "32"})");
  const std::string dir = data_dir("kernels") + "/cuda/gemm";
  j["candidates"] = nlohmann::ordered_json::parse(R"([{"BM": 32}, {"BX": 1}])");
  EXPECT_THAT([&] { parse_variant_json(j, dir, "t.json"); },
              testing::ThrowsMessage<Error>(HasSubstr("candidates[1].BX")));
  j["candidates"] = nlohmann::ordered_json::parse(R"([{"BM": 48}])");
  EXPECT_THAT([&] { parse_variant_json(j, dir, "t.json"); },
              testing::ThrowsMessage<Error>(HasSubstr("48 is outside the parameter's domain")));
  j["candidates"] = nlohmann::ordered_json::parse(R"([{"BM": 32}])");
  EXPECT_EQ(parse_variant_json(j, dir, "t.json")->candidates.size(), 1u);
}

}  // namespace
}  // namespace hetbench
