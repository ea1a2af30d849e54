// T4 export of a real experiment (on PoCL) and the CLI of the interop commands: outputs
// validate against the schemas the tests carry (tests/schemas), statuses map to T4's
// invalidity, and bad input gets one clear error with exit status 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetbench/error.hpp"
#include "interop/t4.hpp"
#include "interop_util.hpp"
#include "util/json_file.hpp"

using namespace hetbench::test;
using nlohmann::json;
using testing::HasSubstr;

namespace {

std::string schema(const std::string& name) { return source_dir() + "/tests/schemas/" + name; }

// Runs tests/interop/validate_schema.py; its output says what is invalid.
CmdResult validate(const std::string& schema_file, const std::vector<std::string>& files) {
  std::string cmd = "python3 " + source_dir() + "/tests/interop/validate_schema.py " + schema_file;
  for (const auto& f : files) cmd += " " + f;
  return run_command(cmd);
}

std::string kernels(const std::string& sub) { return source_dir() + "/tests/kernels/" + sub; }

// One experiment with every status, run once for the tests below.
const std::filesystem::path& modes_experiment() {
  static TempDir out;
  static std::filesystem::path dir = [] {
    auto r = run_hetbench("--kernels " + kernels("interop") + " run axpy --variant modes --device opencl:0:0 " +
                          "--precision S --size 1000 --param MODE=0:3:1 --reps 3 --warmup 1 --out " + out.str());
    EXPECT_EQ(r.status, 1) << r.output;  // a failed and an error point
    return only_experiment(out.path());
  }();
  return dir;
}

json record(const std::string& status, const std::string& stage = "") {
  json r{{"status", status}};
  if (!stage.empty()) r["error_stage"] = stage;
  return r;
}

}  // namespace

TEST(Interop, StatusesMapToT4Invalidity) {
  EXPECT_EQ(hetbench::t4_invalidity(record("ok")), "correct");
  EXPECT_EQ(hetbench::t4_invalidity(record("failed")), "correctness");
  EXPECT_EQ(hetbench::t4_invalidity(record("skipped")), "constraints");
  EXPECT_EQ(hetbench::t4_invalidity(record("error", "build")), "compile");
  EXPECT_EQ(hetbench::t4_invalidity(record("error", "run")), "runtime");
  EXPECT_EQ(hetbench::t4_invalidity(record("error")), "runtime");  // recorded before error_stage
  EXPECT_EQ(hetbench::t4_invalidity(record("crashed")), "runtime");
  EXPECT_EQ(hetbench::t4_invalidity(record("timeout")), "timeout");
  EXPECT_THROW(hetbench::t4_invalidity(record("maybe")), hetbench::Error);
}

TEST(Interop, RealExperimentExportsValidT4) {
  const auto& dir = modes_experiment();
  // The record tells a build error from a run error by a typed field.
  bool build_error = false;
  for (const auto& r : hetbench::read_results(dir))
    if (r["status"] == "error") build_error = r.value("error_stage", "") == "build";
  EXPECT_TRUE(build_error) << "the MODE=2 point should be recorded as a build error";

  TempDir tmp;
  const auto file = (tmp.path() / "modes.t4.json").string();
  auto r = run_hetbench("export t4 " + dir.string() + " --out " + file);
  ASSERT_EQ(r.status, 0) << r.output;
  auto v = validate(schema("T4-results-1.1.0.json"), {file});
  EXPECT_EQ(v.status, 0) << v.output;

  const json doc = hetbench::read_json_file(file);
  EXPECT_EQ(doc["schema_version"], "1.1.0");
  const json& m = doc["metadata"];
  EXPECT_EQ(m["compute_api"], "OpenCL");
  EXPECT_EQ(m["autotuner"], "hetbench");
  EXPECT_EQ(m["timeunit"], "milliseconds");
  EXPECT_THAT(m["autotuner_version"].get<std::string>(), HasSubstr(HETBENCH_VERSION));
  EXPECT_FALSE(m["device"].get<std::string>().empty());
  EXPECT_EQ(m["hetbench"]["op"], "axpy");
  EXPECT_EQ(m["hetbench"]["variant"], "modes");
  EXPECT_EQ(m["hetbench"]["precision"], "S");
  EXPECT_EQ(m["hetbench"]["problem"]["n"], 1000);

  const std::map<int, std::pair<std::string, int>> expected{
      {0, {"correct", 1}}, {1, {"correctness", 0}}, {2, {"compile", 0}}, {3, {"constraints", 0}}};
  ASSERT_EQ(doc["results"].size(), 4u) << doc.dump(1);
  for (const auto& res : doc["results"]) {
    const int mode = res["configuration"]["MODE"];
    EXPECT_EQ(res["configuration"]["WG"], 64);
    EXPECT_EQ(res["invalidity"], expected.at(mode).first) << "MODE=" << mode;
    EXPECT_EQ(res["correctness"], expected.at(mode).second) << "MODE=" << mode;
    std::map<std::string, double> meas;
    for (const auto& x : res["measurements"]) meas[x["name"]] = x["value"].get<double>();
    if (mode <= 1) {  // measured, right or wrong
      EXPECT_GT(meas["time"], 0) << "MODE=" << mode;
      EXPECT_LE(meas["time_min"], meas["time"]);
      EXPECT_EQ(meas["repetitions"], 3);
      EXPECT_GT(meas["gbs"], 0);
      EXPECT_GT(res["times"]["benchmark"].get<double>(), 0);
    } else {
      EXPECT_EQ(meas.count("time"), 0u) << "MODE=" << mode;
    }
  }

  // The validator can fail: a status T4 does not know is caught.
  json bad = doc;
  bad["results"][0]["invalidity"] = "fine";
  const auto bad_file = (tmp.path() / "bad.json").string();
  std::ofstream(bad_file) << bad.dump();
  v = validate(schema("T4-results-1.1.0.json"), {bad_file});
  EXPECT_EQ(v.status, 1) << v.output;
  EXPECT_THAT(v.output, HasSubstr("invalidity"));
}

TEST(Interop, ExperimentOfSeveralProblemsNeedsAFolder) {
  TempDir out, t4;
  auto r = run_hetbench("run axpy --variant all --device host --precision S --size 100,200 --reps 2 --warmup 0 --out " +
                        out.str());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dir = only_experiment(out.path()).string();
  r = run_hetbench("export t4 " + dir);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("give --out-dir DIR"));
  r = run_hetbench("export t4 " + dir + " --out-dir " + t4.str());
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(t4.path())) files.push_back(e.path().string());
  EXPECT_GE(files.size(), 2u);  // n=100 and n=200 at least, per host variant
  for (const auto& f : files) {
    const json doc = hetbench::read_json_file(f);
    EXPECT_FALSE(doc["metadata"].contains("compute_api")) << "the host is neither OpenCL nor CUDA";
    for (const auto& res : doc["results"]) EXPECT_EQ(res["invalidity"], "correct") << f;
  }
  auto v = validate(schema("T4-results-1.1.0.json"), files);
  EXPECT_EQ(v.status, 0) << v.output;
}

TEST(Interop, MalformedExperimentFolderIsBadInput) {
  TempDir d;
  auto expect2 = [](const std::string& args, const std::string& message) {
    auto r = run_hetbench(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(message)) << args;
  };
  expect2("export t4 " + (d.path() / "nosuch").string(), "is not a folder");
  expect2("export t4 " + d.str(), "it has no experiment.json");
  write_text(d.path() / "experiment.json", "{\"hetbench_version\": ");
  expect2("export t4 " + d.str(), "experiment.json: invalid JSON");
  write_text(d.path() / "experiment.json", "{\"hetbench_version\": \"0.1.0\"}");
  expect2("export t4 " + d.str(), "results.jsonl");
  write_text(d.path() / "results.jsonl", "");
  expect2("export t4 " + d.str(), "no points recorded");
  write_text(d.path() / "results.jsonl",
             R"({"op":"axpy","variant":"v","variant_id":"host/axpy/v","device":"host","precision":"S","sizes":{"n":1},"params":{}})"
             "\n");
  expect2("export t4 " + d.str(), "record 0 (line 1): key 'status': missing");
  write_text(d.path() / "results.jsonl",
             R"({"op":"axpy","variant":"v","variant_id":"host/axpy/v","device":"host","precision":"S","sizes":{"n":1},"params":{},"status":"meh"})"
             "\n");
  expect2("export t4 " + d.str(), "unknown status 'meh'");
}

// The autotuning methodology package (Willemsen et al.'s) loads hetbench's T4 files with
// its default time keys: every one of them measured, a tuning's search time included.
TEST(Interop, TheMethodologyPackageLoadsTheExportWithItsDefaultTimeKeys) {
  const std::string py = pyenv_python();
  if (py.empty()) GTEST_SKIP() << "no build/pyenv: scripts/setup-python installs the package (skipped with HETBENCH_NO_PYPI=1)";
  TempDir tmp;
  auto r = run_hetbench("tune axpy --device opencl:0:0 --variant vec --precision S --size 100003 --budget 4 "
                        "--strategy random --reps 3 --warmup 1 --out " + (tmp.path() / "tune").string());
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_hetbench("run axpy --device opencl:0:0 --variant vec,simple --precision S --size 4099 --reps 3 --out " +
                   (tmp.path() / "run").string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::string files;
  for (const char* what : {"tune", "run"})
    for (const auto& e : std::filesystem::directory_iterator(tmp.path() / what)) {
      const auto out = tmp.path() / (std::string(what) + "-t4");
      r = run_hetbench("export t4 " + e.path().string() + " --out-dir " + out.string());
      ASSERT_EQ(r.status, 0) << r.output;
      for (const auto& f : std::filesystem::directory_iterator(out)) files += " " + f.path().string();
    }
  r = run_command(py + " -W ignore " + source_dir() + "/tests/interop/am_load.py" + files);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("4 configuration(s)")) << r.output;  // the tuning's four evaluations
  // The tuning's file says how it searched.
  for (const auto& f : std::filesystem::directory_iterator(tmp.path() / "tune-t4")) {
    const auto doc = hetbench::read_json_file(f.path().string());
    EXPECT_EQ(doc["metadata"]["hetbench"]["search"]["strategy"], "random") << f.path();
    EXPECT_EQ(doc["metadata"]["hetbench"]["search"]["budget"], 4) << f.path();
    for (const auto& res : doc["results"]) {
      EXPECT_GT(res["times"]["compilation"].get<double>(), 0) << res.dump();
      EXPECT_GT(res["times"]["validation"].get<double>(), 0) << res.dump();
      EXPECT_GE(res["times"]["framework"].get<double>(), 0) << res.dump();
      EXPECT_GT(res["times"]["search_algorithm"].get<double>(), 0) << res.dump();
    }
  }
}
