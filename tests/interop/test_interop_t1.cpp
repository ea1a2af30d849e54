// T1: expressions translated both ways keep their values (checked against Python itself),
// every built-in kernel variant exports to a T1 document that validates, a round trip
// through T1 keeps the variant's space, and malformed T1 files get one clear error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "interop/python_expr.hpp"
#include "interop/t1.hpp"
#include "interop_util.hpp"

using namespace hetbench;
using namespace hetbench::test;
using nlohmann::json;
using ojson = nlohmann::ordered_json;
using testing::HasSubstr;

namespace {

std::string run_python(const std::string& script) {
  TempDir tmp;
  write_text(tmp.path() / "s.py", script);
  auto r = run_command("python3 " + (tmp.path() / "s.py").string());
  EXPECT_EQ(r.status, 0) << r.output;
  return r.output;
}

std::string kernel_schema() { return source_dir() + "/tests/schemas/T1-input-1.0.0.json"; }

// The points a variant plans for one problem on one device: each parameter set, whether
// the constraints admit it, and where admitted the lets and launch geometry it gets.
// Large spaces are sampled with a seeded generator (the seed is in the failure message).
std::vector<std::string> space(const KernelVariant& v, std::uint64_t seed) {
  const Op& op = find_op(v.op);
  const DeviceInfo dev = h200_info("T1 space");
  Vars base = device_vars(dev, v.precisions.front());
  double dim = 3001;
  for (const auto& a : op.signature().axes)
    for (const auto& k : a.keys()) base[k] = a.kind == hetbench::Axis::Kind::Dimension ? (dim += 998) : 1;
  std::size_t total = 1;
  for (const auto& p : v.params) total *= p.values.size();
  std::mt19937_64 rng(seed);
  const std::size_t count = std::min<std::size_t>(total, 2000);
  std::vector<std::string> out;
  for (std::size_t s = 0; s < count; ++s) {
    std::size_t idx = total <= 2000 ? s : rng() % total;
    Vars vars = base;
    std::string point;
    for (const auto& p : v.params) {
      const long long x = p.values[idx % p.values.size()];
      idx /= p.values.size();
      vars[p.name] = static_cast<double>(x);
      point += fmt::format("{}={};", p.name, x);
    }
    auto value = [&](const Expr& e) {
      try {
        return fmt::format("{}", e.eval(vars));
      } catch (const Error&) {
        return std::string("error");
      }
    };
    bool admitted = true;
    for (const auto& c : v.constraints) admitted = admitted && value(c) != "0";
    point += admitted ? " admitted" : " excluded";
    if (admitted) {
      for (const auto& [n, e] : v.lets) {
        const std::string x = value(e);
        point += fmt::format(" {}={}", n, x);
        if (x != "error") vars[n] = e.eval(vars);
      }
      for (const auto& [n, e] : v.defines) point += fmt::format(" -D{}={}", n, value(e));
      for (const auto& l : v.setup) {
        point += " setup " + l.kernel;
        for (const auto& g : l.global) point += " g" + value(g);
        for (const auto& g : l.local) point += " l" + value(g);
      }
      for (const auto& l : v.launches) {
        point += " " + l.kernel;
        for (const auto& g : l.global) point += " g" + value(g);
        for (const auto& g : l.local) point += " l" + value(g);
        if (l.local_bytes) point += " b" + value(*l.local_bytes);
      }
    }
    out.push_back(point);
  }
  return out;
}

std::vector<const KernelVariant*> kernel_variants() {
  std::vector<const KernelVariant*> out;
  for (const auto& v : all_variants())
    if (const auto* k = dynamic_cast<const KernelVariant*>(v.get())) out.push_back(k);
  return out;
}

}  // namespace

TEST(InteropExpr, TranslationsKeepTheValueInPython) {
  const std::vector<std::string> exprs{
      "WG <= max_wg && WG * elem_bytes <= local_mem", "ceil(n / (VW * WG)) * WG", "roundup(n, WG)",
      "max(1, min(ceil(n / (VW * WG)), cu * WAVES))", "is_pow2(WG) || !(VW > 2)", "div(n, WG) % 7",
      "2 ^ VW - -3", "VW == 4 ? WG / 2 : floor(n / 3)", "round(n / 8) + round(-n / 8) + abs(1 - VW)",
      "sqrt(WG) + pow(2, VW) + log2(WG)", "(VW % 2 == 0) * 5 + (WG > 100) && n"};
  std::mt19937_64 rng(fresh_seed());
  std::string script = "import math\nclass np:\n    log2 = staticmethod(math.log2)\n";
  std::vector<double> expected;
  for (int trial = 0; trial < 20; ++trial) {
    Vars vars{{"WG", static_cast<double>(1LL << (rng() % 11))}, {"VW", static_cast<double>(1 + rng() % 16)},
              {"n", static_cast<double>(1 + rng() % 100000)}, {"max_wg", 1024.0}, {"elem_bytes", 8.0},
              {"local_mem", 65536.0}, {"cu", 132.0}, {"WAVES", static_cast<double>(1 + rng() % 64)}};
    for (const auto& text : exprs) {
      const Expr e(text);
      const std::string py = to_python(e);
      const Expr back(from_python(py));
      EXPECT_DOUBLE_EQ(back.eval(vars), e.eval(vars)) << text << " -> " << py << " -> " << back.text();
      std::string assign;
      for (const auto& [k, x] : vars) assign += fmt::format("{}={}; ", k, x);
      script += fmt::format("{}print(repr(float({})))\n", assign, py);
      expected.push_back(e.eval(vars));
    }
  }
  std::istringstream lines(run_python(script));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line)) << "python printed fewer values than expected";
    EXPECT_NEAR(std::stod(line), expected[i], 1e-9 * std::max(1.0, std::fabs(expected[i])))
        << exprs[i % exprs.size()] << " -> " << to_python(Expr(exprs[i % exprs.size()]));
  }
}

TEST(InteropExpr, PythonSubsetAndClearErrors) {
  Vars v{{"a", 6}, {"b", 4}, {"c", 5}};
  auto eval = [&](const std::string& py) { return Expr(from_python(py)).eval(v); };
  EXPECT_EQ(eval("b < c < a"), 1);
  EXPECT_EQ(eval("a < c < b"), 0);
  EXPECT_EQ(eval("a in [1, 2, 6] and b not in (4, 8)"), 0);
  EXPECT_EQ(eval("a // b + a ** 2 - int(-7 / 2) + (1 if True else 0)"), 1 + 36 + 3 + 1);
  EXPECT_EQ(eval("max(a, b, c) + min(a, b, 3) + math.ceil(a / b) + bool(c)"), 6 + 3 + 2 + 1);
  EXPECT_EQ(eval("not a == 6 or b % 3 == 1"), 1);
  EXPECT_EQ(python_int_list("[2**i for i in range(1, 5)]"), (std::vector<long long>{2, 4, 8, 16}));
  EXPECT_EQ(python_int_list("list(range(0, 10, 4))"), (std::vector<long long>{0, 4, 8}));
  EXPECT_EQ(python_int_list(" [1, 2,  -3] "), (std::vector<long long>{1, 2, -3}));
  for (const auto& [py, why] : std::vector<std::pair<std::string, std::string>>{
           {"a & b", "bitwise"}, {"a is None", "'is'"}, {"round(a)", "halves to even"},
           {"os.system(a)", "unknown module 'os'"}, {"foo(a)", "unknown function 'foo'"}, {"a +", "unexpected end"},
           {"[1, 2]", "only understood right of 'in'"}}) {
    try {
      from_python(py);
      ADD_FAILURE() << py << " should not translate";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("'" + py + "'")) << py;
      EXPECT_THAT(e.what(), HasSubstr(why)) << py;
    }
  }
  EXPECT_THROW(python_int_list("[1.5, 2]"), Error);
  EXPECT_THROW(python_int_list("['a', 'b']"), Error);
}

TEST(InteropT1, EveryKernelVariantExportsValidT1) {
  TempDir tmp;
  std::vector<std::string> files;
  const auto variants = kernel_variants();
  ASSERT_GT(variants.size(), 20u);
  for (const auto* v : variants) {
    const ojson doc = variant_to_t1(*v, T1Source{"kernel.src", {}});
    files.push_back((tmp.path() / (std::to_string(files.size()) + ".json")).string());
    write_text(files.back(), doc.dump(1));
  }
  std::string cmd = "python3 " + source_dir() + "/tests/interop/validate_schema.py " + kernel_schema();
  for (const auto& f : files) cmd += " " + f;
  auto r = run_command(cmd);
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(InteropT1, RoundTripPlansTheSamePoints) {
  const std::uint64_t seed = fresh_seed();
  TempDir tmp;
  for (const auto* v : kernel_variants()) {
    const auto file = tmp.path() / (v->name + ".t1.json");
    write_text(tmp.path() / std::filesystem::path(v->source_path).filename(), v->source_text);
    const ojson doc = variant_to_t1(*v, T1Source{std::filesystem::path(v->source_path).filename().string(), {}});
    const T1Import imp = t1_to_metadata(doc, file, "rt_" + v->name);
    const auto back = parse_variant_json(imp.metadata, tmp.str(), file.string());
    const auto* k = dynamic_cast<const KernelVariant*>(back.get());
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->backend, v->backend) << v->id();
    EXPECT_EQ(k->precisions, v->precisions) << v->id();
    ASSERT_EQ(k->params.size(), v->params.size()) << v->id();
    for (std::size_t i = 0; i < v->params.size(); ++i) {
      EXPECT_EQ(k->params[i].values, v->params[i].values) << v->id() << " " << v->params[i].name;
      EXPECT_EQ(k->params[i].def, v->params[i].def) << v->id() << " " << v->params[i].name;
    }
    EXPECT_EQ(space(*k, seed), space(*v, seed)) << v->id() << " seed " << seed;
  }
}

TEST(InteropT1, CommandLineRoundTripBuildsAndRuns) {
  TempDir tmp;
  const auto t1 = (tmp.path() / "t1" / "vec.t1.json").string();
  auto r = run_hetbench("kernel export-t1 opencl/axpy/vec --out " + t1);
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_hetbench("kernel import-t1 " + t1 + " --out " + (tmp.path() / "imp").string() + " --name vec_rt");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_hetbench("--kernels " + (tmp.path() / "imp").string() +
                   " run axpy --variant vec_rt --device opencl:0:0 --precision S --size 1000 --reps 2 --warmup 0 --out " +
                   (tmp.path() / "res").string());
  EXPECT_EQ(r.status, 0) << r.output;
  r = run_hetbench("kernel export-t1 opencl/axpy/vec");  // stdout: points at the installed source
  ASSERT_EQ(r.status, 0) << r.output;
  const json doc = json::parse(r.output);
  EXPECT_TRUE(std::filesystem::path(doc["KernelSpecification"]["KernelFile"].get<std::string>()).is_absolute());
}

TEST(InteropT1, MalformedT1IsBadInput) {
  TempDir d;
  write_text(d.path() / "k.cl", "kernel void k(const uint n, global REAL* y) {}");
  auto expect2 = [&](const std::string& text, const std::string& message) {
    write_text(d.path() / "t.json", text);
    auto r = run_hetbench("kernel import-t1 " + (d.path() / "t.json").string() + " --out " + (d.path() / "o").string());
    EXPECT_EQ(r.status, 2) << text << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("t.json")) << text;
    EXPECT_THAT(r.output, HasSubstr(message)) << text;
  };
  const std::string ks =
      R"("KernelSpecification": {"Language": "OpenCL", "KernelName": "k", "KernelFile": "k.cl",
         "GlobalSize": {"X": "n"}, "LocalSize": {"X": "WG"}, "Arguments": [{"Name": "n", "Type": "uint32", "MemoryType": "Scalar"}, {"Name": "y", "Type": "float", "MemoryType": "Vector"}]},
         "hetbench": {"op": "copy", "precisions": ["S"]})";
  const std::string wg = R"({"Name": "WG", "Type": "int", "Values": "[32, 64]"})";
  expect2("{\"ConfigurationSpace\": ", "invalid JSON");
  expect2("{" + ks + "}", "key 'ConfigurationSpace': missing");
  expect2(R"({"ConfigurationSpace": {"TuningParameters": [)" + wg + R"(], "Conditions": [{"Parameters": ["WG"], "Expression": "WG & 32 == 0"}]}, )" + ks + "}",
          "ConfigurationSpace.Conditions[0].Expression': Python expression 'WG & 32 == 0' cannot be translated");
  expect2(R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "WG", "Type": "float", "Values": "[0.5]"}]}, )" + ks + "}",
          "TuningParameters[0].Type': 'float'");
  expect2(R"J({"ConfigurationSpace": {"TuningParameters": [{"Name": "WG", "Type": "int", "Values": "numpy.arange(4)"}]}, )J" + ks + "}",
          "TuningParameters[0].Values'");
  expect2(R"({"ConfigurationSpace": {"TuningParameters": [)" + wg + "]}, " +
              std::string(ks).replace(ks.find("\"k.cl\""), 6, "\"gone.cl\"") + "}",
          "file 'gone.cl' not found");
  expect2(R"({"ConfigurationSpace": {"TuningParameters": [)" + wg + "]}, " +
              std::string(ks).replace(ks.find("\"op\": \"copy\""), 12, "\"op\": \"nope\"") + "}",
          "key 'op'");
  auto r = run_hetbench("kernel export-t1 host/axpy/omp");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("only kernel variants have a T1 description"));
  r = run_hetbench("kernel export-t1 nosuch");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unknown variant 'nosuch'"));
}

TEST(InteropT1, KernelTunerRunsTheExportsAsWritten) {
  const std::string py = pyenv_python();
  if (py.empty()) GTEST_SKIP() << "no build/pyenv: scripts/setup-python installs Kernel Tuner (skipped with HETBENCH_NO_PYPI=1)";
  TempDir tmp;
  // Odd sizes in every dimension; random search within a budget, so the run stays short.
  const std::vector<std::pair<std::string, std::string>> exports = {
      {"opencl/axpy/vec", "100003"}, {"opencl/dot/vec_onepass", "100003"}, {"opencl/gemm/regblock", "67x45x33@TN"},
      {"opencl/gemm/coarse", "61x29x37@NT"}};
  for (const auto& [variant, size] : exports) {
    const auto file = (tmp.path() / (std::filesystem::path(variant).filename().string() + ".json")).string();
    auto r = run_hetbench("kernel export-t1 " + variant + " --size " + size +
                          " --precision S --device opencl:0:0 --strategy random_sample --budget 4 --out " + file);
    ASSERT_EQ(r.status, 0) << r.output;
    r = run_command(py + " -W ignore " + source_dir() + "/tests/interop/kt_t1.py " + file);
    EXPECT_EQ(r.status, 0) << variant << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("validated 4 configuration(s)")) << variant << "\n" << r.output;
  }
  // The check can fail: a kernel that computes something else is caught.
  const auto axpy = tmp.path() / "vec.json", source = tmp.path() / "vec.cl";
  std::ifstream in(source);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("STOREV(a * LOADV(i, x)");
  ASSERT_NE(at, std::string::npos) << "the AXPY kernel's main statement moved: update this test";
  text.replace(at, 22, "STOREV(a * LOADV(i, y)");
  write_text(source, text);
  auto r = run_command(py + " -W ignore " + source_dir() + "/tests/interop/kt_t1.py " + axpy.string());
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAILED")) << r.output;
}

TEST(InteropT1, WhatKernelTunerCannotRunIsRefusedWithTheReason) {
  TempDir tmp;
  const auto out = " --out " + (tmp.path() / "t.json").string();
  auto expect2 = [&](const std::string& args, const std::string& message) {
    auto r = run_hetbench("kernel export-t1 " + args + out);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(message)) << args;
  };
  expect2("opencl/dot/vec --size 1000", "an execution is 2 launches (dot_vec then reduce_sum)");
  expect2("opencl/dot/vec --size 1000", "in one launch: opencl/dot/vec_onepass");
  expect2("opencl/axpy/vec --size 1000 --precision DD", "it has no DD version");
  expect2("opencl/axpy/vec --size 10x10", "malformed size '10x10'");
  expect2("opencl/gemm/regblock --size 100x100x100@XY", "100x100x100@XY");
  expect2("opencl/axpy/vec --precision S", "give --size too");
  expect2("opencl/axpy/vec --size 1000 --budget -3", "--budget -3");
  expect2("opencl/axpy/vec --size 1000 --device host", "no opencl device matching 'host'");
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "t.json"));
}

// The head-to-head of bench/kernel_tuner/head_to_head.py (one tuning problem, Kernel Tuner
// from the T1 export and `hetbench tune`, the same budget): both tuners run it to the end
// and each reports its best, re-timed by hetbench. Which is faster is a measurement
// (docs/performance.md), not asserted here.
TEST(InteropT1, HeadToHeadRunsBothTunersOnOneProblem) {
  const std::string py = pyenv_python();
  if (py.empty()) GTEST_SKIP() << "no build/pyenv: scripts/setup-python installs Kernel Tuner (skipped with HETBENCH_NO_PYPI=1)";
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device";
  TempDir tmp;
  // Both tuners without a database (the script passes --db none); HOME stays, where PoCL
  // caches its kernels (a compile under LeakSanitizer leaks LLVM's memory).
  const auto r = run_command(py + " -W ignore " + source_dir() +
                             "/bench/kernel_tuner/head_to_head.py " + HETBENCH_BINARY +
                             " opencl/axpy/vec 100003 S opencl:0:0 3 " + tmp.str());
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<json> results;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("result ", 0) == 0) results.push_back(json::parse(line.substr(7)));
  ASSERT_EQ(results.size(), 2u) << r.output;
  for (const auto& x : results) {
    EXPECT_EQ(x["evaluations"], 3) << x.dump();
    EXPECT_GT(x["best_s"].get<double>(), 0) << x.dump();
    EXPECT_GT(x["retimed_s"].get<double>(), 0) << x.dump();
    EXPECT_TRUE(x["params"].contains("WG")) << x.dump();  // the variant's own parameters, block sizes left out
  }
  EXPECT_THAT(r.output, HasSubstr("Kernel Tuner's best / hetbench's best"));
}
