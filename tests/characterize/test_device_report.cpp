// `hetbench devices --report`: the facts of host, PoCL and CUDA devices with their types
// and plausible values, the JSON's keys, the text's alignment, the measured section (ops
// not in this build, extraction from records, --measure recording an experiment), bad input.
#include <algorithm>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include <fmt/format.h>

#include "api/device_facts.hpp"
#include "backends/nvidia/nvml.hpp"
#include "backends/nvidia/nvml_facts.hpp"
#include "characterize/device_measure.hpp"
#include "characterize/device_report.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "test_util.hpp"

namespace hetbench {
namespace {

using test::run_hetbench;
using test::TempDir;
using testing::HasSubstr;

std::shared_ptr<Device> device_or_null(const std::string& id) {
  try {
    return resolve_devices(id).front();
  } catch (const Error&) {
    return nullptr;
  }
}

// A span of values in the fact's unit (NVML's supported clocks): {min, max, count}, numbers,
// min <= max.
bool is_span(const nlohmann::json& v) {
  return v.is_object() && v.size() == 3 && v.contains("min") && v.contains("max") && v.contains("count") &&
         v["min"].is_number() && v["max"].is_number() && v["count"].is_number() &&
         v["min"].get<double>() <= v["max"].get<double>();
}

// Every fact has the documented keys; a value is a number, string, bool or array, an
// object (a span, or named parts each a number, string or bool: NVML's remapped rows), or
// null with the reason in its note; a value in bytes or MHz is a number or a span.
void expect_well_formed(const nlohmann::json& report) {
  ASSERT_TRUE(report["sections"].is_array());
  for (const auto& s : report["sections"]) {
    ASSERT_TRUE(s["name"].is_string());
    for (const auto& f : s["facts"]) {
      for (const char* k : {"key", "label", "unit", "note"}) EXPECT_TRUE(f[k].is_string()) << f.dump();
      const auto& v = f["value"];
      auto scalar = [](const nlohmann::json& x) { return x.is_number() || x.is_string() || x.is_boolean(); };
      if (v.is_null())
        EXPECT_FALSE(f["note"].get<std::string>().empty()) << "no reason for " << f.dump();
      else if (v.is_object())
        EXPECT_TRUE(!v.empty() && std::all_of(v.begin(), v.end(), scalar)) << f.dump();
      else
        EXPECT_TRUE(scalar(v) || v.is_array()) << f.dump();
      if (f["unit"] == "bytes" || f["unit"] == "MHz") EXPECT_TRUE(v.is_null() || v.is_number() || is_span(v)) << f.dump();
    }
  }
}

double number(const nlohmann::json& report, const std::string& key) {
  const auto& v = report["values"];
  EXPECT_TRUE(v.contains(key)) << key;
  EXPECT_TRUE(v.contains(key) && v[key].is_number()) << key << " = " << (v.contains(key) ? v[key].dump() : "absent");
  return v.contains(key) && v[key].is_number() ? v[key].get<double>() : 0;
}

class DeviceReport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cache_ = new TempDir;
    setenv("HETBENCH_CACHE_DIR", cache_->str().c_str(), 1);  // no stored ceilings from the user's cache
    env_ = "HETBENCH_CACHE_DIR=" + cache_->str();
  }
  static void TearDownTestSuite() { delete cache_; }
  static inline TempDir* cache_ = nullptr;
  static inline std::string env_;
};

TEST_F(DeviceReport, HostFactsHaveTypesAndPlausibleValues) {
  const auto r = device_report_json(*resolve_devices("host").front());
  expect_well_formed(r);
  EXPECT_EQ(r["format"], "hetbench-device-report-1");
  EXPECT_FALSE(r["values"]["device.name"].get<std::string>().empty());
  const double threads = number(r, "compute.threads");
  EXPECT_GT(threads, 0);
  if (r["values"]["compute.cores"].is_number()) {
    EXPECT_GT(number(r, "compute.cores"), 0);
    EXPECT_LE(number(r, "compute.cores"), number(r, "compute.threads_online"));
  }
  EXPECT_GT(number(r, "memory.total_bytes"), 1 << 20);
  EXPECT_LE(number(r, "memory.available_bytes"), number(r, "memory.total_bytes"));
  // sysfs caches: the smallest level is smaller than the largest.
  if (r["values"].contains("memory.l1d_bytes") && r["values"].contains("memory.l2_bytes")) {
    EXPECT_GE(number(r, "memory.l1d_bytes"), 4096);
    EXPECT_GT(number(r, "memory.l2_bytes"), number(r, "memory.l1d_bytes"));
  }
#if defined(__x86_64__)
  EXPECT_TRUE(r["values"]["isa.avx2"].is_boolean());
  EXPECT_TRUE(r["values"]["isa.avx512f"].is_boolean());
#endif
  // No ceilings stored in this test's cache: said how to get them.
  EXPECT_TRUE(r["ceilings"].is_null());
  EXPECT_THAT(r["ceilings_note"].get<std::string>(), HasSubstr("hetbench ceilings host"));
}

TEST_F(DeviceReport, PoclFactsHaveTypesAndPlausibleValues) {
  auto d = device_or_null("opencl:0:0");
  if (!d) GTEST_SKIP() << "no OpenCL device (PoCL) here";
  const auto r = device_report_json(*d);
  expect_well_formed(r);
  EXPECT_EQ(number(r, "compute.compute_units"), d->info().compute_units);
  EXPECT_GT(number(r, "compute.compute_units"), 0);
  EXPECT_GT(number(r, "memory.global_bytes"), 0);
  EXPECT_GT(number(r, "memory.local_bytes"), 0);
  EXPECT_LE(number(r, "memory.max_alloc_bytes"), number(r, "memory.global_bytes"));
  EXPECT_GT(number(r, "compute.max_work_group_size"), 0);
  EXPECT_EQ(number(r, "software.extension_count"), d->info().extensions.size());
  EXPECT_EQ(r["values"]["compute.fp64"], d->info().fp64);
  EXPECT_TRUE(r["values"]["device.platform"].is_string());
  EXPECT_EQ(r["values"]["compute.max_work_item_sizes"].size(), 3u);
}

TEST_F(DeviceReport, CudaFactsWhereThereIsAGpu) {
  auto d = device_or_null("cuda:0");
  if (!d) GTEST_SKIP() << "no CUDA device here: " << backend(BackendKind::Cuda).unavailable_reason();
  const auto r = device_report_json(*d);
  expect_well_formed(r);
  const double sms = number(r, "compute.sm_count");
  EXPECT_GT(sms, 0);
  if (r["values"]["compute.cores_per_sm"].is_number())
    EXPECT_EQ(number(r, "compute.cuda_cores"), sms * number(r, "compute.cores_per_sm"));
  EXPECT_GT(number(r, "memory.bus_width_bits"), 0);
  EXPECT_GT(number(r, "memory.l2_bytes"), 0);
  EXPECT_GT(number(r, "clocks.sm_clock_mhz"), 0);
  EXPECT_TRUE(r["values"]["memory.ecc"].is_boolean());
  EXPECT_TRUE(r["values"]["modes.compute_mode"].is_string());
  // NVML's lines are there with a value or the reason.
  for (const char* k : {"link.pcie_gen_current", "link.pcie_width_max", "power.limit_w", "power.enforced_limit_w"})
    EXPECT_TRUE(r["values"].contains(k)) << k;
  // The sections of `nvidia-smi -q` the issue names: supported clocks, ECC counters,
  // retired pages (remapped rows on Hopper), P-state, temperatures, throttle reasons.
  for (const char* k : {"clocks.sm_supported_mhz", "clocks.mem_supported_mhz", "health.pstate", "health.clock_event_reasons",
                        "health.ecc_corrected_volatile", "health.ecc_uncorrected_aggregate", "health.retired_pages_dbe",
                        "health.remapped_rows", "power.temp_slowdown_c", "power.temp_shutdown_c", "power.temperature_c"})
    EXPECT_TRUE(r["values"].contains(k)) << k;
  if (r["values"]["health.pstate"].is_string()) EXPECT_EQ(r["values"]["health.pstate"].get<std::string>()[0], 'P');
  if (r["values"]["clocks.sm_supported_mhz"].is_object())
    EXPECT_LE(r["values"]["clocks.sm_supported_mhz"]["max"].get<double>(), number(r, "clocks.sm_max_mhz") + 1);
  EXPECT_GT(number(r, "peaks.memory_gbs"), 0);
  // deviceQuery's lines beside them: textures, pitch, unified addressing, host-mapped memory.
  EXPECT_GT(number(r, "textures.texture_1d_width"), 0);
  EXPECT_EQ(r["values"]["textures.texture_3d"].size(), 3u);
  EXPECT_GT(r["values"]["textures.texture_2d"][1].get<double>(), 0);
  EXPECT_GT(number(r, "textures.texture_alignment_bytes"), 0);
  EXPECT_GT(number(r, "memory.max_pitch_bytes"), 0);
  EXPECT_TRUE(r["values"]["memory.unified_addressing"].is_boolean());
  EXPECT_TRUE(r["values"]["memory.host_mapped_memory"].is_boolean());
  EXPECT_TRUE(r["values"]["modes.cooperative_launch"].is_boolean());
}

TEST_F(DeviceReport, NvmlLinesSayWhyWhenThereIsNoNvml) {
  // The host is no NVIDIA GPU: every NVML line is there, null, with the reason; without
  // the library the reason is the one the issue asks for.
  FactList f;
  add_nvml_facts(f, resolve_devices("host").front()->info());
  const auto facts = f.take();
  ASSERT_GE(facts.size(), 10u);
  for (const auto& x : facts) {
    EXPECT_TRUE(x.value.is_null()) << x.key;
    if (!nvml::api()) EXPECT_EQ(x.note, "NVML not found") << x.key;
    else EXPECT_THAT(x.note, HasSubstr("not an NVIDIA GPU")) << x.key;
  }
}

TEST_F(DeviceReport, JsonHasTheDocumentedKeys) {
  auto r = run_hetbench("devices --report all --json", env_);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_TRUE(j["reports"].is_array());
  EXPECT_EQ(j["reports"].size(), all_devices().size());
  for (const auto& rep : j["reports"]) {
    for (const char* k : {"format", "id", "backend", "name", "sections", "values", "ceilings", "measurements"})
      EXPECT_TRUE(rep.contains(k)) << k << " missing in " << rep["id"];
    for (const auto& m : rep["measurements"])
      for (const char* k : {"name", "label", "op", "unit", "status", "reason"}) EXPECT_TRUE(m.contains(k)) << k;
  }
  EXPECT_EQ(j["reports"][0]["id"], "host");
}

TEST_F(DeviceReport, TextIsAlignedAndListsOpsNotInTheBuild) {
  auto r = run_hetbench("devices --report host", env_);
  ASSERT_EQ(r.status, 0) << r.output;
  std::istringstream in(r.output);
  std::set<std::size_t> columns;
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("    ", 0) != 0) continue;  // headings
    const auto gap = line.find("  ", 4);
    ASSERT_NE(gap, std::string::npos) << line;
    columns.insert(line.find_first_not_of(' ', gap));
    ++rows;
  }
  EXPECT_GT(rows, 20);
  EXPECT_EQ(columns.size(), 1u) << "values start in more than one column:\n" << r.output;
  int unregistered = 0;
  for (const auto& m : report_measurements()) {
    bool known = false;
    for (const Op* op : all_ops()) known |= op->name() == m.op;
    if (known) continue;
    ++unregistered;
    EXPECT_THAT(r.output, HasSubstr(fmt::format("not measured: op {} not in this build", m.op)));
  }
  EXPECT_THAT(r.output, HasSubstr("not measured: none stored for this device"));
  // An entry naming an op no build has is never measured.
  ReportMeasurement ghost{"ghost", "ghost", "no_such_op", "2^10", "2^10", "gbs", "GB/s", false, false};
  EXPECT_EQ(not_measurable(ghost, *resolve_devices("host").front()), "op no_such_op not in this build");
}

TEST_F(DeviceReport, ExtractionTakesTheBestPerSizeFromRecords) {
  std::mt19937_64 rng(test::fresh_seed());
  std::uniform_real_distribution<double> u(1, 100);
  std::vector<nlohmann::json> recs;
  std::map<long long, double> hi, lo;
  for (long long n : {1024LL, 4096LL, 5000LL})
    for (int v = 0; v < 3; ++v) {
      const double x = u(rng);
      recs.push_back({{"device", "host"}, {"op", "pchase"}, {"status", "ok"}, {"sizes", {{"n", n}}},
                      {"variant_id", fmt::format("host/pchase/v{}", v)}, {"precision", "S"}, {"lat", {{"ns", x}}}});
      hi[n] = std::max(hi.count(n) ? hi[n] : 0.0, x);
      lo[n] = std::min(lo.count(n) ? lo[n] : 1e9, x);
    }
  recs.push_back({{"device", "host"}, {"op", "pchase"}, {"status", "failed"}, {"sizes", {{"n", 1024}}}, {"lat", {{"ns", 0.0}}}});
  recs.push_back({{"device", "other"}, {"op", "pchase"}, {"status", "ok"}, {"sizes", {{"n", 1024}}}, {"lat", {{"ns", 1e-3}}}});
  ReportMeasurement m{"p", "latency", "pchase", "", "", "ns", "ns", true, true};
  auto j = extract_measurement(m, "host", recs);
  ASSERT_EQ(j["status"], "measured") << j.dump();
  ASSERT_EQ(j["values"].size(), 3u);
  EXPECT_EQ(j["values"][0]["at"], "n=2^10");
  EXPECT_EQ(j["values"][2]["at"], "n=5000");
  EXPECT_DOUBLE_EQ(j["values"][0]["value"].get<double>(), lo[1024]);
  EXPECT_DOUBLE_EQ(j["values"][1]["value"].get<double>(), lo[4096]);
  m.lower_is_better = false;
  m.per_size = false;
  j = extract_measurement(m, "host", recs);
  ASSERT_EQ(j["values"].size(), 1u);
  EXPECT_DOUBLE_EQ(j["values"][0]["value"].get<double>(), std::max({hi[1024], hi[4096], hi[5000]}));
  m.metric = "gbs";
  EXPECT_THAT(extract_measurement(m, "host", recs)["reason"].get<std::string>(), HasSubstr("carry no 'gbs'"));
  EXPECT_EQ(extract_measurement(m, "nowhere", recs)["reason"], "no point was recorded");
}

TEST_F(DeviceReport, MeasureOnPoclRecordsAnExperiment) {
  if (!device_or_null("opencl:0:0")) GTEST_SKIP() << "no OpenCL device (PoCL) here";
  TempDir out;
  auto r = run_hetbench(fmt::format("devices --report opencl:0:0 --measure --reps 2 --warmup 0 --seed 7 --out {} --json",
                                    out.str()), env_);
  ASSERT_EQ(r.status, 0) << r.output;
  // The runner's progress goes to stderr, which the harness mixes in: the JSON is the
  // block from a line "{" to a line "}".
  const auto from = r.output.find("{\n"), to = r.output.rfind("\n}");
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos && to > from) << r.output;
  const auto j = nlohmann::json::parse(r.output.substr(from, to + 2 - from));
  const auto& rep = j["reports"].at(0);
  const auto dir = test::only_experiment(out.path());
  EXPECT_EQ(rep["experiment"], std::filesystem::absolute(dir).string());
  const auto& copy = rep["measurements"].at(0);
  ASSERT_EQ(copy["status"], "measured") << copy.dump();
  EXPECT_GT(copy["values"][0]["value"].get<double>(), 0);
  EXPECT_EQ(copy["experiment"], rep["experiment"]);
  // The experiment: its records, its device report with the measurements, and the
  // system description's facts.
  const auto recs = read_results(dir);
  ASSERT_FALSE(recs.empty());
  // Only the report's own measurements ran, the copy among them.
  std::set<std::string> ops, listed;
  for (const auto& rec : recs) ops.insert(rec["op"].get<std::string>());
  for (const auto& m : report_measurements()) listed.insert(m.op);
  EXPECT_TRUE(ops.count("copy"));
  for (const auto& op : ops) EXPECT_TRUE(listed.count(op)) << op;
  std::ifstream f(dir / "device-report.json");
  EXPECT_EQ(nlohmann::json::parse(f)["reports"][0]["measurements"], rep["measurements"]);
  std::ifstream e(dir / "experiment.json");
  const auto exp = nlohmann::json::parse(e);
  EXPECT_EQ(exp["seed"], 7);
  EXPECT_THAT(exp["command_line"].get<std::string>(), HasSubstr("--report opencl:0:0 --measure"));
  EXPECT_TRUE(exp["devices"][0]["report"]["sections"].is_array());
}

TEST_F(DeviceReport, BadInputGivesOneClearError) {
  auto r = run_hetbench("devices --report no-such-device", env_);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("unknown device 'no-such-device': available devices are host"));
  r = run_hetbench("devices --report", env_);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("--report needs a device: one of host"));
  r = run_hetbench("devices --measure", env_);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("--measure needs --report DEVICE"));
}

}  // namespace
}  // namespace hetbench
