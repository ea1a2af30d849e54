// Each kind of bad input gets one clear sentence and a non-zero exit status.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;

namespace {

void expect_error(const std::string& args, const std::string& message, const std::string& env = "") {
  TempDir out;
  const bool measures = args.find("run ") != std::string::npos || args.find("sweep ") != std::string::npos;
  auto r = run_hetbench(measures ? args + " --out " + out.str() : args, env);
  EXPECT_NE(r.status, 0) << args << "\n" << r.output;
  EXPECT_THAT(r.output, HasSubstr(message)) << args;
  // Input errors stop before anything is measured: no experiment folder.
  if (r.status == 2) EXPECT_TRUE(std::filesystem::is_empty(out.path())) << args;
}

std::string kernels(const std::string& sub) { return source_dir() + "/tests/kernels/" + sub; }

}  // namespace

TEST(BadInput, UnknownOpVariantDevice) {
  expect_error("run gemv --size 10", "unknown op 'gemv'");
  expect_error("run dot --variant nosuch --size 10", "unknown variant 'nosuch' of dot");
  expect_error("run dot --device opencl:9:9 --size 10", "unknown device 'opencl:9:9'");
  expect_error("run dot --device cuda:0 --size 10", "unknown device 'cuda:0'");
  expect_error("run dot --precision Q --size 10", "unknown precision 'Q'");
  expect_error("run dot --variant local --precision DF --size 10", "has no DF version (it has S, D)");
}

TEST(BadInput, MalformedSizesAndParameters) {
  expect_error("run dot --size 1:x", "malformed size");
  expect_error("run dot --size 100:10:1", "start 100 is above end 10");
  expect_error("run dot --size 10:100:*1", "factor must be 2 or more");
  expect_error("run dot --variant local --size 10 --param WG=8:", "malformed parameter WG");
  expect_error("run dot --variant local --size 10 --param WG", "malformed --param 'WG'");
  expect_error("run dot --variant local --size 10 --param WG=3", "WG=3 is outside the domain of ");
  expect_error("run dot --variant local --size 10 --param XYZ=3", "unknown parameter 'XYZ'");
  expect_error("run dot --size 10 --reps 0", "--reps 0 is impossible");
}

TEST(BadInput, ImpossibleSizes) {
  expect_error("run axpy --size 0", "n = 0 is impossible");
  expect_error("run axpy --size -5", "is impossible");
  expect_error("run axpy --device host --size 1e14", "more than the");
}

TEST(BadInput, MalformedMetadata) {
  TempDir d;
  expect_error("--kernels " + kernels("badmeta") + " list", "syntax.json: invalid JSON");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(d.path() / name) << text;
    return (d.path() / name).string();
  };
  write("k.cl", "kernel void k(const uint n, global REAL* y) {}");
  expect_error("--kernels " + write("a.json", R"J({"name":"a","op":"copy","source":"k.cl","precisions":["S"],
    "entry":"k","args":["n","y"],"global":"ceil(n/WGG)"})J") + " list",
               "a.json: key 'global': unknown name 'WGG'");
  expect_error("--kernels " + write("b.json", R"J({"name":"b","op":"copy","source":"k.cl","precisions":["X"],
    "entry":"k","args":["n","y"],"global":"n"})J") + " list",
               "b.json: key 'precisions[0]'");
  expect_error("--kernels " + write("c.json", R"J({"name":"c","op":"copy","source":"k.cl","precisions":["S"],
    "params":{"WG":{"values":[64],"default":128}},"entry":"k","args":["n","y"],"global":"n"})J") + " list",
               "c.json: key 'params.WG.default'");
  expect_error("--kernels " + write("d.json", R"J({"name":"d","op":"copy","source":"missing.cl","precisions":["S"],
    "entry":"k","args":["n","y"],"global":"n"})J") + " list",
               "d.json: key 'source'");
  expect_error("--kernels " + write("e.json", R"J({"name":"e","op":"copy","source":"k.cl","precisions":["S"],
    "entry":"k","args":["n","zz"],"global":"n"})J") + " list",
               "e.json: key 'args[1]'");
  expect_error("--kernels " + write("f.json", R"J({"name":"f","op":"nosuchop","source":"k.cl","precisions":["S"],
    "entry":"k","args":["n"],"global":"n"})J") + " list",
               "f.json: key 'op'");
  // Setup launches run once, untimed: one that writes an output would be measured once only.
  expect_error("--kernels " + write("g.json", R"J({"name":"g","op":"copy","source":"k.cl","precisions":["S"],
    "setup":[{"kernel":"k","args":["n","y"],"global":"n"}],"entry":"k","args":["n","y"],"global":"n"})J") + " list",
               "g.json: key 'setup[0].args[1]': 'y' is written by copy");
}

TEST(BadInput, KernelThatDoesNotBuildShowsTheBuildLog) {
  TempDir out;
  auto r = run_hetbench("--kernels " + kernels("nobuild") + " run copy --variant broken --size 100 --out " + out.str());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("kernel build failed: "));
  EXPECT_THAT(r.output, HasSubstr("broken.cl"));
  EXPECT_THAT(r.output, HasSubstr("undeclared_identifier"));  // from the device's build log
}

TEST(BadInput, UnwritableOutputFolder) {
  TempDir d;
  std::ofstream(d.path() / "file") << "x";
  auto r = run_hetbench("run dot --device host --size 10 --out " + (d.path() / "file" / "sub").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot create output folder"));
}

TEST(BadInput, UnknownSubcommandOrOption) {
  auto r = run_hetbench("frobnicate");
  EXPECT_NE(r.status, 0);
  r = run_hetbench("run dot --size 10 --bogus");
  EXPECT_NE(r.status, 0);
}

TEST(BadInput, MalformedSpecFile) {
  TempDir d;
  std::ofstream(d.path() / "s.json") << R"({"op": "dot", "sizes": ["10"], "reps": "many"})";
  auto r = run_hetbench("sweep " + (d.path() / "s.json").string() + " --out " + d.str());
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("s.json: key 'reps': expected an integer"));
}
