// The Python reader as a package: `pip install ./python` into a fresh virtual environment
// (Debian's pandas through --system-site-packages, nothing fetched), then used from
// outside the source tree as a user would: its version is the program's, it reads an
// experiment the program just wrote, and the report's console script is installed.
#include <fstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;
namespace fs = std::filesystem;

TEST(PythonPackage, InstallsIntoAFreshVirtualEnvironmentWithTheProgramsVersion) {
  if (run_shell("/usr/bin/python3 -c 'import venv, ensurepip'").status != 0)
    GTEST_SKIP() << "no python3-venv (scripts/setup-deps installs it)";
  TempDir tmp;
  // A copy, so that the build's egg-info and build/ folders stay out of the source tree.
  const auto src = tmp.path() / "src", venv = tmp.path() / "venv", out = tmp.path() / "out";
  fs::copy(source_dir() + "/python", src, fs::copy_options::recursive);
  auto r = run_shell("/usr/bin/python3 -m venv --system-site-packages " + venv.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string py = (venv / "bin" / "python").string();
  // --no-index: nothing comes from PyPI; the build uses Debian's setuptools and wheel.
  r = run_shell(py + " -m pip install --quiet --disable-pip-version-check --no-index --no-build-isolation " +
                src.string());
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_shell(py + " -m pip show hetbench");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(std::string("Version: ") + HETBENCH_VERSION));
  EXPECT_THAT(r.output, HasSubstr("Requires: numpy, pandas"));

  r = run_hetbench("run axpy --device host --variant loop --precision S,D --size 1000,4097 --reps 2 --no-db --out " +
                   out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto dir = only_experiment(out);
  const auto records = hetbench::read_results(dir);
  // From another folder, so that the import can only find the installed package.
  const std::string script = fmt::format(R"(
import hetbench
print("version", hetbench.__version__)
print("installed", hetbench.__file__.startswith("{}"))
df = hetbench.read_experiment("{}")
print("rows", len(df), "ok", int((df.status == "ok").sum()))
print("sizes", sorted(set(int(x) for x in df.size_n)))
print("doc", bool(hetbench.read_experiment.__doc__) and bool(hetbench.read_store.__doc__))
)",
                                         venv.string(), dir.string());
  write_text(tmp.path() / "use.py", script);
  r = run_shell("cd / && " + py + " " + (tmp.path() / "use.py").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(std::string("version ") + HETBENCH_VERSION));
  EXPECT_THAT(r.output, HasSubstr("installed True"));
  EXPECT_THAT(r.output, HasSubstr(fmt::format("rows {} ok {}", records.size(), records.size())));
  EXPECT_THAT(r.output, HasSubstr("sizes [1000, 4097]"));
  EXPECT_THAT(r.output, HasSubstr("doc True"));
  // The report's entry point came along.
  r = run_shell((venv / "bin" / "hetbench-report").string() + " --help");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("-o OUT"));
}
