// Planning without devices: fake devices and variants, the real op registry. Checks which
// points exist, their order, constraint skips, left-out variants and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "engine/plan/plan.hpp"
#include "hetbench/error.hpp"
#include "test_util.hpp"
#include "tune/db_hook.hpp"

namespace hetbench {
namespace {

using testing::HasSubstr;

class FakeDevice final : public Device {
 public:
  FakeDevice(std::string id, bool fp64, std::uint64_t mem = 0) {
    info_.id = std::move(id);
    info_.backend = BackendKind::OpenCL;  // any API: planning only compares them
    info_.name = "Fake " + info_.id;
    info_.fp64 = fp64;
    info_.global_mem = mem;
  }
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<Buffer> alloc(std::size_t) override { throw Error("planning touched a device"); }
  void finish() override { throw Error("planning touched a device"); }
  double time(const std::function<void()>&) override { throw Error("planning touched a device"); }

 private:
  DeviceInfo info_;
};

class FakeVariant final : public Variant {
 public:
  FakeVariant(std::string n, std::vector<Precision> ps, std::vector<ParamDef> pd, std::vector<std::string> cons = {},
              BackendKind be = BackendKind::OpenCL, std::string of = "dot") {
    op = std::move(of);
    name = std::move(n);
    backend = be;
    kind = VariantKind::Kernel;
    precisions = std::move(ps);
    params = std::move(pd);
    for (auto& c : cons) constraints.emplace_back(c);
  }
  std::unique_ptr<Instance> prepare(Device&, const Problem&, const BufferMap&, const ParamValues&) const override {
    throw Error("planning prepared a variant");
  }
};

struct PlanTest : testing::Test {
  // a: S and D, WG in 8..64 with WG <= n; b: S only, VW 1,2,4; c: WG 8 only.
  std::vector<std::shared_ptr<Variant>> variants{
      std::make_shared<FakeVariant>("a", std::vector{Precision::S, Precision::D},
                                    std::vector<ParamDef>{{"WG", {8, 16, 32, 64}, 16, ""}},
                                    std::vector<std::string>{"WG <= n"}),
      std::make_shared<FakeVariant>("b", std::vector{Precision::S}, std::vector<ParamDef>{{"VW", {1, 2, 4}, 1, ""}}),
      std::make_shared<FakeVariant>("c", std::vector{Precision::S, Precision::D},
                                    std::vector<ParamDef>{{"WG", {8}, 8, ""}})};
  std::vector<std::shared_ptr<Device>> devices{std::make_shared<FakeDevice>("fake:0", true),
                                               std::make_shared<FakeDevice>("fake:1", false)};

  RunSpec spec(std::vector<std::string> names = {"all"}) {
    RunSpec r;
    r.op = "dot";
    r.variants = std::move(names);
    r.sizes = {"4,100"};
    return r;
  }
  Plan plan(const RunSpec& r, std::vector<std::shared_ptr<Device>> devs = {}) {
    return plan_points({plan_run(r, 1, find_op("dot"), variants, devs.empty() ? devices : devs)});
  }
};

TEST_F(PlanTest, CountsOrderAndSkips) {
  auto r = spec({"a", "b"});
  r.params = {{"WG", "8,32"}};
  auto p = plan(r);
  // S: 2 sizes x 2 devices x (a: WG 8, 32; b: VW default) = 12
  // D: b has no D, fake:1 has no FP64: 2 sizes x fake:0 x a: 2 = 4
  ASSERT_EQ(p.points.size(), 16u);
  std::size_t skipped = 0;
  for (const auto& pt : p.points) skipped += !pt.skip.empty();
  EXPECT_EQ(skipped, 6u);  // WG 8 and 32 exceed n=4: S on both devices, D on fake:0
  // Ordered by precision, size, device, variant, parameter set.
  const auto& first = p.points[0];
  EXPECT_EQ(first.prec, Precision::S);
  EXPECT_EQ(first.size, 0u);
  EXPECT_EQ(first.device, 0u);
  EXPECT_EQ(first.variant->name, "a");
  EXPECT_EQ(first.params.at("WG"), 8);
  EXPECT_THAT(first.skip, HasSubstr("WG <= n"));
  EXPECT_EQ(p.points[1].params.at("WG"), 32);
  EXPECT_EQ(p.points[2].variant->name, "b");
  EXPECT_EQ(p.points[2].params.at("VW"), 1);
  EXPECT_TRUE(p.points[2].skip.empty());
  EXPECT_EQ(p.points[3].device, 1u);
  EXPECT_EQ(p.points[6].size, 1u);
  EXPECT_TRUE(p.points[6].skip.empty());
  EXPECT_EQ(p.points[12].prec, Precision::D);
  for (std::size_t i = 12; i < 16; ++i) EXPECT_EQ(p.points[i].device, 0u);
  // Left out once per variant, device and precision, not once per size.
  ASSERT_EQ(p.left_out.size(), 3u);
  EXPECT_THAT(p.left_out[0], HasSubstr("opencl/dot/b on fake:0 in D"));
  EXPECT_THAT(p.left_out[1], HasSubstr("opencl/dot/a on fake:1 in D: fake:1 has no FP64 support"));
}

TEST_F(PlanTest, AllSaysDeviceReasonsButNotMissingPrecisions) {
  auto p = plan(spec());  // "all": b has no D version, fake:1 has no FP64
  for (const auto& l : p.left_out) EXPECT_THAT(l, testing::Not(HasSubstr("has no D version"))) << l;
  ASSERT_FALSE(p.left_out.empty());
  for (const auto& l : p.left_out) EXPECT_THAT(l, HasSubstr("fake:1 has no FP64 support"));
}

TEST_F(PlanTest, ValueOutsideOneDomainLeavesThatVariantOut) {
  auto r = spec();
  r.params = {{"WG", "8,32"}};
  r.precisions = {Precision::S};
  auto p = plan(r, {devices[0]});
  ASSERT_EQ(p.runs[0].variants.size(), 3u);
  EXPECT_EQ(p.runs[0].variants[0].param_sets.size(), 2u);  // a: WG 8, 32
  EXPECT_EQ(p.runs[0].variants[2].param_sets.size(), 1u);  // c: WG 8 only
  EXPECT_EQ(p.points.size(), 2u * (2 + 1 + 1));
}

TEST_F(PlanTest, VariantsOfOtherBackendsDrop) {
  variants.push_back(std::make_shared<FakeVariant>("o", std::vector{Precision::S}, std::vector<ParamDef>{},
                                                   std::vector<std::string>{}, BackendKind::Cuda));
  auto p = plan(spec());
  for (const auto& v : p.runs[0].variants) EXPECT_NE(v.variant->name, "o");
  EXPECT_THAT([&] { plan(spec({"o"})); }, testing::ThrowsMessage<Error>(HasSubstr("none of the chosen variants")));
}

TEST_F(PlanTest, BadInputThrowsBeforeAnyPoint) {
  auto expect_error = [&](RunSpec r, const std::string& what, std::vector<std::shared_ptr<Device>> devs = {}) {
    SCOPED_TRACE(what);
    EXPECT_THAT([&] { plan(r, devs); }, testing::ThrowsMessage<Error>(HasSubstr(what)));
  };
  auto r = spec();
  r.params = {{"WG", "3"}};
  expect_error(r, "WG=3 is outside the domain of opencl/dot/a (8,16,32,64); opencl/dot/c (8)");
  r.params = {{"XYZ", "1"}};
  expect_error(r, "unknown parameter 'XYZ'");
  expect_error(spec({"nosuch"}), "unknown variant 'nosuch' of dot: available are opencl/dot/a");
  r = spec({"b"});
  r.precisions = {Precision::D};
  expect_error(r, "variant opencl/dot/b has no D version (it has S)");
  r = spec();
  r.reps = 0;
  expect_error(r, "--reps 0 is impossible");
  r = spec();
  r.sizes.clear();
  expect_error(r, "no size given for dot");
  r = spec();
  r.inputs = {"gen:poisson2d:n=4"};
  expect_error(r, "takes no --matrix");
  r = spec();
  r.sizes = {"1e9"};
  expect_error(r, "more than the", {std::make_shared<FakeDevice>("fake:2", true, std::uint64_t{1} << 30)});
}

TEST(Plan, RegistriesAndTheHostDevice) {
  Experiment e;
  RunSpec r;
  r.op = "axpy";
  r.devices = "host";
  r.sizes = {"10,1000"};
  e.runs = {r};
  auto p = plan_experiment(e);
  ASSERT_EQ(p.runs.size(), 1u);
  std::size_t versions = 0;
  for (const auto& v : variants_for("axpy"))
    if (v->backend == BackendKind::Host)
      for (auto pr : v->precisions) versions += pr == Precision::S || pr == Precision::D;
  EXPECT_EQ(p.points.size(), 2u * versions);
  for (const auto& pt : p.points) {
    EXPECT_EQ(p.runs[0].devices[pt.device]->id(), "host");
    EXPECT_TRUE(pt.skip.empty());
  }
}

// The tuning database as planning sees it: entries in memory, the real nearest-entry rule.
struct FakeLookup final : tuning::TuningLookup {
  std::vector<tuning::TuningEntry> entries;
  std::optional<tuning::LookupHit> lookup(const tuning::LookupQuery& q) const override {
    return tuning::nearest(entries, q);
  }
  void add(const Variant& v, const Device& d, Precision p, long long n, ParamValues params) {
    // "storage=aos": dot has a storage axis
    add_entry(v, d, p, tuning::classify_features(v.op, {{"n", n}}), tuning::storage_key(find_op(v.op), Sizes{{"n", n}}),
              std::move(params));
  }
  void add_entry(const Variant& v, const Device& d, Precision p, tuning::ProblemClass cls, std::string storage,
                 ParamValues params) {
    tuning::TuningEntry e;
    e.id = static_cast<std::int64_t>(entries.size()) + 1;
    e.device = tuning::DeviceIdentity::of(d.info());
    e.variant_id = v.id();
    e.variant_hash = tuning::variant_hash(v);
    e.precision = p;
    e.problem = std::move(cls);
    e.storage = std::move(storage);
    e.params = std::move(params);
    e.rate = 1;
    entries.push_back(std::move(e));
  }
};

TEST_F(PlanTest, ParametersComeFromTheDatabaseAndSaySo) {
  FakeLookup db;
  db.add(*variants[0], *devices[0], Precision::S, 128, {{"WG", 32}});
  auto r = spec({"a"});
  r.precisions = {Precision::S};
  auto p = plan_points({plan_run(r, 1, find_op("dot"), variants, devices)}, &db);
  ASSERT_EQ(p.points.size(), 4u);  // 2 sizes x 2 devices
  const auto& big = p.points[2];   // n=100 on fake:0: distance log2(128/100)
  EXPECT_EQ(big.params.at("WG"), 32);
  EXPECT_THAT(big.param_source.at("WG"), HasSubstr("db:1 same device, distance 0.356"));
  EXPECT_TRUE(big.skip.empty());
  // fake:1 is another device of the same (empty) architecture.
  EXPECT_THAT(p.points[3].param_source.at("WG"), HasSubstr("db:1 same architecture"));
  // n=4 is out of the entry's reach (log2(128/4) = 5 > 2): the metadata default, which
  // breaks WG <= n, so the point is skipped.
  EXPECT_EQ(p.points[0].params.at("WG"), 16);
  EXPECT_EQ(p.points[0].param_source.at("WG"), "metadata");
  EXPECT_THAT(p.points[0].skip, HasSubstr("WG <= n"));
  // Given on the command line wins; without a database, the metadata default.
  r.params = {{"WG", "8"}};
  p = plan_points({plan_run(r, 1, find_op("dot"), variants, devices)}, &db);
  EXPECT_EQ(p.points[2].params.at("WG"), 8);
  EXPECT_EQ(p.points[2].param_source.at("WG"), "command line");
  p = plan(spec({"a"}));
  EXPECT_EQ(p.points[0].params.at("WG"), 16);
  EXPECT_EQ(p.points[0].param_source.at("WG"), "metadata");
  // An entry of another precision is not used.
  r.params.clear();
  r.precisions = {Precision::D};
  p = plan_points({plan_run(r, 1, find_op("dot"), variants, {devices[0]})}, &db);
  EXPECT_EQ(p.points[1].param_source.at("WG"), "metadata");
}

TEST_F(PlanTest, DefaultsPerPrecision) {
  ParamDef wg{"WG", {8, 16, 32, 64}, 16, ""};
  wg.def_by_precision = {{Precision::S, 16}, {Precision::D, 64}};
  variants = {std::make_shared<FakeVariant>("a", std::vector{Precision::S, Precision::D}, std::vector<ParamDef>{wg})};
  auto p = plan(spec({"a"}), {devices[0]});
  ASSERT_EQ(p.points.size(), 4u);
  EXPECT_EQ(p.points[0].params.at("WG"), 16);
  EXPECT_EQ(p.points[0].param_source.at("WG"), "metadata S");
  EXPECT_EQ(p.points[2].params.at("WG"), 64);
  EXPECT_EQ(p.points[2].param_source.at("WG"), "metadata D");
}

TEST_F(PlanTest, AutoTakesTheDatabaseEntrysVariantAndParameters) {
  FakeLookup db;
  db.add(*variants[1], *devices[0], Precision::S, 100, {{"VW", 4}});
  db.add(*variants[0], *devices[0], Precision::S, 1 << 20, {{"WG", 64}});
  auto r = spec({"auto"});
  r.precisions = {Precision::S};
  auto p = plan_points({plan_run(r, 1, find_op("dot"), variants, {devices[0]})}, &db);
  ASSERT_EQ(p.points.size(), 2u);  // one per size
  EXPECT_EQ(p.points[1].variant->name, "b");  // n=100: b's entry is nearer
  EXPECT_EQ(p.points[1].params.at("VW"), 4);
  EXPECT_THAT(p.points[1].param_source.at("VW"), HasSubstr("db:1"));
  EXPECT_EQ(p.points[1].auto_choice["chosen"], "opencl/dot/b");
  EXPECT_THAT(p.points[1].auto_choice["reason"].get<std::string>(), HasSubstr("db entry 1, same device, distance 0"));
  // Without a database: the rule (none of its preferred dot variants here: the first by name).
  p = plan(r, {devices[0]});
  EXPECT_EQ(p.points[0].variant->name, "a");
  EXPECT_THAT(p.points[0].auto_choice["reason"].get<std::string>(), HasSubstr("rule:"));
}

TEST_F(PlanTest, AutoRuleFollowsTheRowLengths) {
  variants.clear();
  for (const char* n : {"scalar", "vector", "merge"})
    variants.push_back(std::make_shared<FakeVariant>(n, std::vector{Precision::S, Precision::D}, std::vector<ParamDef>{},
                                                     std::vector<std::string>{}, BackendKind::OpenCL, "spmv"));
  RunSpec r;
  r.op = "spmv";
  r.variants = {"auto", "vector"};  // auto beside a named one
  r.precisions = {Precision::D};
  // short even rows; long even rows; a power-law tail; one dense row; short rows of
  // random columns
  r.inputs = {"gen:poisson2d:n=30", "gen:banded:n=2000,bw=12", "gen:powerlaw:n=20000,avg=8",
              "gen:dense_row:n=5000", "gen:random:n=5000,per_row=3"};
  auto p = plan_points({plan_run(r, 7, find_op("spmv"), variants, {devices[0]})});
  ASSERT_EQ(p.points.size(), 10u);
  const char* want[] = {"scalar", "vector", "merge", "merge", "vector"};
  for (std::size_t i = 0; i < 5; ++i) {
    const auto& auto_pt = p.points[2 * i];
    SCOPED_TRACE(r.inputs[i]);
    EXPECT_EQ(auto_pt.variant->name, want[i]);
    EXPECT_EQ(auto_pt.auto_choice["chosen"], "opencl/spmv/" + std::string(want[i]));
    EXPECT_THAT(auto_pt.auto_choice["reason"].get<std::string>(), HasSubstr("rule: "));
    EXPECT_EQ(p.points[2 * i + 1].variant->name, "vector");
    EXPECT_TRUE(p.points[2 * i + 1].auto_choice.is_null());
  }
  EXPECT_THAT(p.points[6].auto_choice["reason"].get<std::string>(), HasSubstr("max/mean row length"));
  EXPECT_THAT(p.points[8].auto_choice["reason"].get<std::string>(), HasSubstr("of scattered columns"));
  EXPECT_THAT(p.points[2].auto_choice["reason"].get<std::string>(), HasSubstr("long"));  // a band is not scattered
}


// The parameter rule on crafted features: each parameter from the statistic it follows.
TEST(AutoParamRule, ValuesFollowTheRowStatistics) {
  // The op's rule (Op::param_rules) for a variant of the name, with VW (CUDA's vector) or
  // without it (OpenCL's).
  const auto rule_params = [](const std::string& op, const std::string& variant, const nlohmann::json& f,
                              bool has_vw = true) {
    FakeVariant v(variant, {Precision::S}, has_vw ? std::vector<ParamDef>{{"VW", {1, 2, 4}, 2, ""}} : std::vector<ParamDef>{},
                  {}, BackendKind::Cuda, op);
    return find_op(op).param_rules(v, f);
  };
  auto tpr = [&](double mean) { return rule_params("spmv", "vector", {{"row_mean", mean}, {"row_std", 0.0}}); };
  // at least two VW=2 loads per lane: TPR = largest power of two <= mean / 4, in 2..64
  const std::pair<double, long long> want[] = {{3, 2}, {9, 2}, {17, 4}, {27, 4}, {40, 8}, {130, 32}, {5000, 64}};
  for (const auto& [mean, t] : want) {
    const auto r = tpr(mean);
    ASSERT_EQ(r.count("TPR"), 1u) << mean;
    EXPECT_EQ(r.at("TPR").value, t) << mean;
    EXPECT_THAT(r.at("TPR").why, HasSubstr("rule: mean row length"));
  }
  EXPECT_EQ(rule_params("spmv", "merge", {{"row_mean", 2.0}, {"row_std", 40.0}}).at("IPT").value, 7);
  EXPECT_EQ(rule_params("spmv", "merge", {{"row_mean", 12.0}, {"row_std", 30.0}}).at("IPT").value, 5);
  const auto uneven = rule_params("spmv", "scalar", {{"row_mean", 2.4}, {"row_std", 1.2}});
  EXPECT_EQ(uneven.at("WG").value, 32);
  EXPECT_THAT(uneven.at("WG").why, HasSubstr("cv 0.5 > 0.3"));
  // Scattered columns (bandwidth/cols > 0.25): VW 2 and one step per lane, TPR the
  // smallest power of two >= mean / 2, in 2..64; a band of the same rows keeps the rule above.
  auto scattered = [&](double mean, double bandwidth) {
    return rule_params("spmv", "vector",
                               {{"row_mean", mean}, {"row_std", 0.0}, {"cols", 1000.0}, {"bandwidth", bandwidth}});
  };
  const std::pair<double, long long> spread[] = {{2.4, 2}, {3, 2}, {7, 4}, {20, 16}, {33, 32}, {500, 64}};
  for (const auto& [mean, t] : spread) {
    const auto r = scattered(mean, 990);
    EXPECT_EQ(r.at("TPR").value, t) << mean;
    EXPECT_EQ(r.at("VW").value, 2) << mean;
    EXPECT_THAT(r.at("TPR").why, HasSubstr("scattered columns (bandwidth/cols 0.99 > 0.25)"));
  }
  EXPECT_EQ(scattered(20, 100).at("TPR").value, 4);  // bandwidth/cols 0.1: the band rule
  EXPECT_EQ(scattered(20, 100).count("VW"), 0u);
  // A vector kernel without VW (OpenCL's) loads one nonzero a step: twice the lanes.
  const nlohmann::json random20{{"row_mean", 20.0}, {"row_std", 0.0}, {"cols", 1000.0}, {"bandwidth", 990.0}};
  const auto one = rule_params("spmv", "vector", random20, false);
  EXPECT_EQ(one.at("TPR").value, 32);
  EXPECT_EQ(one.count("VW"), 0u);
  EXPECT_THAT(one.at("TPR").why, HasSubstr("one step of 1 per lane"));
  EXPECT_EQ(rule_params("spmv", "vector", {{"row_mean", 27.0}, {"row_std", 0.0}}, false).at("TPR").value, 8);
  EXPECT_TRUE(rule_params("spmv", "scalar", {{"row_mean", 7.0}, {"row_std", 0.5}}).empty());  // even rows
  EXPECT_TRUE(rule_params("spmv", "adaptive", {{"row_mean", 7.0}, {"row_std", 0.5}}).empty());
  EXPECT_TRUE(rule_params("gemm", "regblock", {{"m", 64}}).empty());
}

// An auto point without a database entry takes the rule's values and says so; a value on
// the command line still wins, a named variant keeps its metadata defaults, and a near
// database entry comes before the rule.
TEST_F(PlanTest, AutoParametersFromTheRuleWhenTheDatabaseHasNothingNear) {
  variants = {std::make_shared<FakeVariant>("scalar", std::vector{Precision::D},
                                            std::vector<ParamDef>{{"WG", {32, 64, 128, 256}, 128, ""}},
                                            std::vector<std::string>{}, BackendKind::OpenCL, "spmv"),
              std::make_shared<FakeVariant>("vector", std::vector{Precision::D},
                                            std::vector<ParamDef>{{"TPR", {2, 4, 8, 16, 32}, 8, ""},
                                                                  {"VW", {1, 2, 4}, 2, ""},
                                                                  {"WG", {64, 128, 256}, 256, ""}},
                                            std::vector<std::string>{}, BackendKind::OpenCL, "spmv"),
              std::make_shared<FakeVariant>("merge", std::vector{Precision::D},
                                            std::vector<ParamDef>{{"IPT", {3, 5, 7}, 3, ""}},
                                            std::vector<std::string>{}, BackendKind::OpenCL, "spmv")};
  RunSpec r;
  r.op = "spmv";
  r.variants = {"auto", "vector"};
  r.precisions = {Precision::D};
  // uneven short rows of a band (cv about 0.6): scalar; rows of 25: vector; one dense row,
  // mean ~2: merge
  r.inputs = {"gen:banded:n=2000,bw=3,density=0.3", "gen:banded:n=2000,bw=12", "gen:dense_row:n=5000"};
  auto p = plan_points({plan_run(r, 7, find_op("spmv"), variants, {devices[0]})});
  ASSERT_EQ(p.points.size(), 6u);
  EXPECT_EQ(p.points[0].variant->name, "scalar");
  EXPECT_EQ(p.points[0].params.at("WG"), 32);
  EXPECT_THAT(p.points[0].param_source.at("WG"), HasSubstr("rule: row length cv"));
  EXPECT_EQ(p.points[2].variant->name, "vector");
  EXPECT_EQ(p.points[2].params.at("TPR"), 4);
  EXPECT_THAT(p.points[2].param_source.at("TPR"), HasSubstr("rule: mean row length"));
  EXPECT_EQ(p.points[2].param_source.at("WG"), "metadata");  // the rule has no opinion on it
  EXPECT_EQ(p.points[3].params.at("TPR"), 8);  // the named vector: its default
  EXPECT_EQ(p.points[3].param_source.at("TPR"), "metadata");
  EXPECT_EQ(p.points[4].variant->name, "merge");
  EXPECT_EQ(p.points[4].params.at("IPT"), 7);
  EXPECT_THAT(p.points[4].param_source.at("IPT"), HasSubstr("rule: mean row length"));
  r.params = {{"TPR", "16"}};
  p = plan_points({plan_run(r, 7, find_op("spmv"), variants, {devices[0]})});
  EXPECT_EQ(p.points[2].params.at("TPR"), 16);
  EXPECT_EQ(p.points[2].param_source.at("TPR"), "command line");
  // A database entry of vector near the banded matrix: its value, not the rule's.
  r.params.clear();
  FakeLookup db;
  db.add_entry(*variants[1], *devices[0], Precision::D, tuning::classify_features("spmv", p.runs[0].features[1]),
               tuning::storage_key(find_op("spmv"), p.runs[0].sizes[1]), {{"TPR", 32}});
  p = plan_points({plan_run(r, 7, find_op("spmv"), variants, {devices[0]})}, &db);
  EXPECT_EQ(p.points[2].params.at("TPR"), 32);
  EXPECT_THAT(p.points[2].param_source.at("TPR"), HasSubstr("db:1 same device, distance 0"));
}


// An op with rules of its own, which no registry holds and nothing in src/tuning or
// src/tune names: its classes (log2 n weighted a quarter, reach 0.5), its variant order
// and parameter rule, and its rating by flops are what planning, the database and tune's
// database hook use (Op's tuning interface, hetbench/op_rules.hpp).
class RulesOp final : public Op {
 public:
  std::string name() const override { return "rules_fake"; }
  std::string description() const override { return "an op of the tests, with rules of its own"; }
  const OpSignature& signature() const override {
    static const OpSignature sig{{{"x"}, {"y", true, Elem::Real, Access::Out}}, {Axis::dimension("n")}};
    return sig;
  }
  double device_bytes(const Sizes& s, Precision) const override { return 8 * static_cast<double>(s.at("n")); }
  Validation validate(const Problem&, const Outputs&) const override { throw Error("planning validated"); }
  ClassCoords problem_class(const nlohmann::json& f) const override {
    const double n = class_feature(f, "n", name());
    return {fmt::format("fake n 2^{:.0f}", std::log2(n)), {std::log2(n)}, {0.25}, {{"n", n}}};
  }
  double class_reach() const override { return 0.5; }
  VariantPreference preferred_variants(const nlohmann::json& f) const override {
    if (f.value("n", 0.0) > 1000) return {{"zeta", "a"}, "rule: n above 1000 takes zeta"};
    return {{"a"}, "rule: n up to 1000 takes a"};
  }
  std::map<std::string, ParamRule> param_rules(const Variant& v, const nlohmann::json& f) const override {
    if (v.name != "zeta") return {};
    return {{"WG", {f.value("n", 0.0) > 1e5 ? 64 : 32, "rule: zeta's WG from n"}}};
  }
  OpRates rates() const override { return {.by_flops = true, .shows_flops = true}; }

 protected:
  std::unique_ptr<Problem> build_problem(const Sizes&, Precision, std::uint64_t) const override {
    throw Error("planning built a problem");
  }
};

TEST(OpRules, TuningAsksTheOpNotItsName) {
  ASSERT_EQ(op_named("rules_fake"), nullptr);
  const RulesOp op;
  const std::vector<std::shared_ptr<Variant>> variants{
      std::make_shared<FakeVariant>("a", std::vector{Precision::S}, std::vector<ParamDef>{{"WG", {8, 16}, 8, ""}},
                                    std::vector<std::string>{}, BackendKind::OpenCL, "rules_fake"),
      std::make_shared<FakeVariant>("zeta", std::vector{Precision::S}, std::vector<ParamDef>{{"WG", {16, 32, 64}, 16, ""}},
                                    std::vector<std::string>{}, BackendKind::OpenCL, "rules_fake")};
  const std::vector<std::shared_ptr<Device>> devices{std::make_shared<FakeDevice>("fake:0", true)};
  RunSpec r;
  r.op = "rules_fake";
  r.variants = {"auto"};
  r.precisions = {Precision::S};
  r.sizes = {"500,5000,500000"};
  auto p = plan_points({plan_run(r, 1, op, variants, devices)});
  ASSERT_EQ(p.points.size(), 3u);
  EXPECT_EQ(p.points[0].variant->name, "a");
  EXPECT_EQ(p.points[0].auto_choice["reason"], "rule: n up to 1000 takes a");
  EXPECT_EQ(p.points[0].param_source.at("WG"), "metadata");
  for (std::size_t i : {1, 2}) {
    EXPECT_EQ(p.points[i].variant->name, "zeta");
    EXPECT_EQ(p.points[i].auto_choice["reason"], "rule: n above 1000 takes zeta");
    EXPECT_EQ(p.points[i].param_source.at("WG"), "rule: zeta's WG from n");
  }
  EXPECT_EQ(p.points[1].params.at("WG"), 32);
  EXPECT_EQ(p.points[2].params.at("WG"), 64);
  // The op's class: an entry at n=4096 serves n=5000 (a quarter of 0.29 octaves) but not
  // n=500000 (a quarter of 6.9 octaves is past the op's reach of 0.5, where the default
  // class would reach 2 octaves).
  const auto cls = tuning::classify(op, Sizes{{"n", 4096}});
  EXPECT_EQ(cls.label, "fake n 2^12");
  EXPECT_EQ(cls.reach, 0.5);
  EXPECT_NEAR(tuning::distance(cls, tuning::classify(op, Sizes{{"n", 5000}})), 0.25 * std::log2(5000.0 / 4096), 1e-12);
  FakeLookup db;
  db.add_entry(*variants[1], *devices[0], Precision::S, cls, tuning::storage_key(op, Sizes{{"n", 4096}}), {{"WG", 16}});
  p = plan_points({plan_run(r, 1, op, variants, devices)}, &db);
  EXPECT_EQ(p.points[1].variant->name, "zeta");
  EXPECT_EQ(p.points[1].params.at("WG"), 16);
  EXPECT_THAT(p.points[1].param_source.at("WG"), HasSubstr("db:1"));
  EXPECT_EQ(p.points[2].param_source.at("WG"), "rule: zeta's WG from n");
  // Tune's database hook rates the op's best by GFLOP/s, as the op says.
  test::TempDir tmp;
  tuning::TuningDb store(tmp.path() / "tuning.db");
  tune::TuningResult t;
  t.op = "rules_fake";
  t.found = true;
  t.variant_id = variants[1]->id();
  t.precision = "S";
  t.params = {{"WG", 32}};
  t.gbs = 45;
  t.gflops = 123;
  t.device_ref = devices[0].get();
  t.variant_ref = variants[1].get();
  t.op_ref = &op;
  t.problem = Sizes{{"n", 5000}};
  t.features = {{"n", 5000}};
  tune::database_hook(store, 1)(t);
  ASSERT_EQ(store.list().size(), 1u);
  EXPECT_EQ(store.list()[0].unit, "GFLOP/s");
  EXPECT_EQ(store.list()[0].rate, 123);
}

}  // namespace
}  // namespace hetbench
