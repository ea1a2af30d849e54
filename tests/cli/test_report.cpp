// hetbench report: a small real experiment (host and PoCL) rendered to HTML, opened in
// headless Chromium, and every plot and table checked from the rendered page; the Python
// reader; and the report's bad input.
#include <algorithm>
#include <regex>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetbench/op.hpp"
#include "test_util.hpp"

using namespace hetbench::test;
using testing::HasSubstr;
namespace fs = std::filesystem;

namespace {

// As the report command: HETBENCH_PYTHON, else Debian's python3 (which has pandas and
// matplotlib), else the python3 on PATH.
std::string python() {
  if (const char* p = std::getenv("HETBENCH_PYTHON"); p && *p) return p;
  return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

bool have_pocl() { return run_hetbench("devices").output.find("opencl:0:0") != std::string::npos; }

class Report : public ::testing::Test {
 protected:
  // One experiment of every kind the report draws, recorded once: ceilings of the host
  // first (so that the later records carry `ceiling`), then a sweep (sizes, a WG sweep on
  // PoCL, S/D/DF/DD, SpMV with Eigen as the library baseline) and a small tune.
  static void SetUpTestSuite() {
    root_ = new TempDir;
    env_ = "HETBENCH_CACHE_DIR=" + (root_->path() / "cache").string();
    const auto out = (root_->path() / "results").string();
    auto r = run_hetbench(fmt::format("ceilings host --size 2^16 --peak-size 2^14 --reps 3 --warmup 1 --quick --out {}/c", out), env_);
    ASSERT_EQ(r.status, 0) << r.output;
    pocl_ = have_pocl();
    const bool pocl = pocl_;
    const auto seed = fresh_seed();
    write_text(root_->path() / "spec.json", fmt::format(R"({{"name": "report", "seed": {}, "reps": 5, "warmup": 1,
      "runs": [
        {{"op": "axpy", "devices": "host", "precisions": ["S"], "variants": ["host/axpy/omp", "host/axpy/openblas"],
         "sizes": ["2^10:2^14:*4"]}},
        {{"op": "dot", "devices": "{}", "precisions": ["S"], "variants": ["{}"], "sizes": ["2^14"], "params": {{"{}": "{}"}}}},
        {{"op": "dot", "devices": "host", "precisions": ["S", "D"], "variants": ["host/dot/omp"], "sizes": ["2^14"]}},
        {{"op": "dot", "devices": "host", "precisions": ["DF", "DD"], "variants": ["host/dot/dw_omp"], "sizes": ["2^14"]}},
        {{"op": "spmv", "devices": "host", "precisions": ["D"], "variants": ["host/spmv/omp", "host/spmv/eigen"],
         "matrices": ["gen:poisson2d:n=32", "gen:random:n=1000,per_row=6"]}},
        {{"op": "nbody", "devices": "host", "precisions": ["S"], "variants": ["host/nbody/omp"],
         "sizes": ["250@soa", "250@aos", "250@aosoa"]}}]}})",
                                                         seed, pocl ? "opencl:0:0" : "host",
                                                         pocl ? "opencl/dot/local" : "host/dot/omp",
                                                         pocl ? "WG" : "BLOCK", pocl ? "16,32,64" : "256,1024,4096"));
    r = run_hetbench(fmt::format("sweep {} --no-db --out {}/s", (root_->path() / "spec.json").string(), out), env_);
    ASSERT_EQ(r.status, 0) << r.output;
    r = run_hetbench(fmt::format("tune dot --variant host/dot/omp --device host --precision S --size 2^14 --strategy random "
                                 "--budget 6 --reps 3 --warmup 1 --db none --seed {} --out {}/t",
                                 seed, out),
                     env_);
    ASSERT_EQ(r.status, 0) << r.output;
    for (const char* sub : {"c", "s", "t"}) experiments_.push_back(only_experiment(fs::path(out) / sub).string());
  }
  static void TearDownTestSuite() { delete root_; }

  static std::string all_experiments() {
    std::string s;
    for (const auto& e : experiments_) s += " " + e;
    return s;
  }

  static inline TempDir* root_ = nullptr;
  static inline std::string env_;
  static inline bool pocl_ = false;
  static inline std::vector<std::string> experiments_;
};

TEST_F(Report, EveryPlotAndTableRendersInChromium) {
  ASSERT_EQ(experiments_.size(), 3u);
  TempDir out;
  auto r = run_hetbench("report" + all_experiments() + " -o " + out.str(), env_);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto index = out.path() / "index.html";
  ASSERT_TRUE(fs::exists(index));
  // The plots' units are the library's (rates.json, from each op's Op::rates), not a list
  // of the script's: every op, GFLOP/s exactly where the op is rated by its arithmetic.
  const auto units = read_json(out.path() / "rates.json");
  for (const hetbench::Op* op : hetbench::all_ops())
    EXPECT_EQ(units.at(op->name()), op->rates().by_flops ? "GFLOP/s" : "GB/s") << op->name();
  EXPECT_EQ(units.at("gemm"), "GFLOP/s");
  EXPECT_EQ(units.at("nbody"), "GFLOP/s");
  EXPECT_EQ(units.at("dot"), "GB/s");
  // Every section with data has its figure, written as PNG and SVG.
  std::vector<std::string> pngs;
  for (const auto& e : fs::directory_iterator(out.path() / "plots"))
    if (e.path().extension() == ".png") pngs.push_back(e.path().stem().string());
  for (const std::string prefix : {"size_axpy", "lws_dot", "roofline_host", "tune_", "accuracy", "spmv_host", "layouts_host"})
    if (pocl_ || prefix != "lws_dot")  // the work-group sweep runs on PoCL
    EXPECT_TRUE(std::any_of(pngs.begin(), pngs.end(), [&](const auto& s) { return s.rfind(prefix, 0) == 0; }))
        << "no plot " << prefix << "* among " << testing::PrintToString(pngs);
  for (const auto& p : pngs) {
    EXPECT_GT(fs::file_size(out.path() / "plots" / (p + ".png")), 1000u) << p;
    EXPECT_GT(fs::file_size(out.path() / "plots" / (p + ".svg")), 1000u) << p;
  }

  // The page as a browser renders it: the inline script writes each image's decoded size
  // and the counts into the DOM once the page has loaded (CI is root without a display:
  // --no-sandbox and --headless).
  const auto dom = run_shell("chromium --headless --disable-gpu --no-sandbox --virtual-time-budget=10000 "
                             "--window-size=1400,1000 --dump-dom file://" + index.string() + " 2>/dev/null");
  ASSERT_EQ(dom.status, 0) << dom.output.substr(0, 2000);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom.output, m, std::regex(R"re(data-plots="(\d+)" data-plots-loaded="(\d+)" data-tables="(\d+)")re")))
      << dom.output.substr(0, 2000);
  EXPECT_EQ(std::stoul(m[1]), pngs.size());
  EXPECT_EQ(m[1], m[2]) << "plots that did not decode";
  const std::regex natural(R"re(data-natural="(\d+)x(\d+)")re");
  std::size_t imgs = 0;
  for (auto it = std::sregex_iterator(dom.output.begin(), dom.output.end(), natural); it != std::sregex_iterator(); ++it) {
    ++imgs;
    EXPECT_GT(std::stoi((*it)[1]), 100);
    EXPECT_GT(std::stoi((*it)[2]), 100);
  }
  EXPECT_EQ(imgs, pngs.size());
  // Tables: experiments, tuning, speed against accuracy, SpMV; each with rows of text.
  EXPECT_GE(std::stoul(m[3]), 4u);
  const std::regex table(R"re(<table class="data">([\s\S]*?)</table>)re");
  std::size_t tables = 0;
  for (auto it = std::sregex_iterator(dom.output.begin(), dom.output.end(), table); it != std::sregex_iterator(); ++it) {
    ++tables;
    const std::string body = (*it)[1];
    EXPECT_THAT(body, testing::ContainsRegex("<tbody><tr><td[^>]*>[^<]+</td>")) << body.substr(0, 500);
  }
  EXPECT_EQ(tables, std::stoul(m[3]));
  EXPECT_THAT(dom.output, HasSubstr("host/spmv/eigen"));  // the library baseline in the SpMV table
  EXPECT_THAT(dom.output, HasSubstr(">DD<"));             // the accuracy table spans the double-words
  // The layout plot's table: the host's three nbody layouts, normalised to the fastest.
  EXPECT_THAT(dom.output, HasSubstr("<h2>Data layouts</h2>"));
  EXPECT_THAT(dom.output, HasSubstr(">aosoa<"));
  // No energy here (no NVIDIA GPU): the section says why instead of an empty plot.
  EXPECT_THAT(dom.output, HasSubstr("No point recorded energy"));
  // The Devices section: each device's report (experiment.json devices[].report), its facts
  // beside the ceilings the first experiment stored (docs/memory-system.md).
  EXPECT_THAT(dom.output, HasSubstr("<h2>Devices</h2>"));
  EXPECT_THAT(dom.output, HasSubstr("hardware threads (usable)"));
  EXPECT_THAT(dom.output, HasSubstr("FMA peak FP32"));
  // The first screen answers "how fast, against what": the summary comes first, its
  // figure is the page's first plot and starts within 1,000 pixels of a 1400-pixel-wide
  // window; the device facts (80 rows a device) come after the plots.
  ASSERT_TRUE(std::regex_search(dom.output, m, std::regex(R"re(data-first-plot-top="(\d+)")re"))) << "no plot position";
  EXPECT_LT(std::stoi(m[1]), 1000) << "the first plot starts " << m[1] << " pixels down";
  const auto summary_at = dom.output.find("<h2>Summary</h2>"), devices_at = dom.output.find("<h2>Devices</h2>");
  ASSERT_NE(summary_at, std::string::npos);
  EXPECT_LT(summary_at, devices_at);
  EXPECT_LT(dom.output.find("src=\"plots/summary.png\""), dom.output.find("<h2>Rate against size</h2>"));
  EXPECT_THAT(dom.output, HasSubstr("host/axpy/openblas"));  // the vendor the summary compares with
  // What each drawn figure shows: tick labels on every axis (two on a log axis), no legend
  // over a panel, a style per series, and the tuning landscapes' configurations named.
  const auto checks = read_json(out.path() / "plots" / "checks.json");
  EXPECT_EQ(checks.size(), pngs.size());
  for (const auto& [name, c] : checks.items()) {
    for (const auto& ax : c["axes"]) {
      if (ax["colorbar"].get<bool>()) {
        EXPECT_GE(std::max(ax["x"].get<int>(), ax["y"].get<int>()), 2) << name;
        continue;
      }
      for (const char* a : {"x", "y"}) {
        const bool log = ax[std::string(a) + "_log"].get<bool>();
        EXPECT_GE(ax[a].get<int>(), log ? 2 : 1) << name << ": " << a << " axis with too few tick labels";
      }
    }
    EXPECT_EQ(c["legend_overlaps"], 0) << name;
    EXPECT_EQ(c["styles"], c["series"]) << name << ": two series look alike";
    if (name.rfind("tune_", 0) == 0) EXPECT_GE(c["annotations"].get<int>(), 2) << name;
  }
  // Nothing is fetched from elsewhere.
  std::ifstream f(index);
  const std::string html((std::istreambuf_iterator<char>(f)), {});
  EXPECT_THAT(html, testing::Not(testing::ContainsRegex("(src|href)=\"(https?:)?//")));
}

// The defects a reader met, drawn on purpose: a rate axis over less than a decade (host
// DOT at 30-60 GB/s had no tick label at all), and a narrower one; twelve series in one
// panel (the local-size plot reused colours across 12 lines under a legend over the data).
TEST(ReportPlots, AxesLegendsAndStylesStayReadable) {
  TempDir d;
  write_text(d.path() / "check.py", R"py(import sys
sys.path.insert(0, sys.argv[1])
import pandas as pd
from hetbench import plots
rows = []
for v in range(12):
    for i, n in enumerate([2**10, 2**12, 2**14, 2**16]):
        r = 30 + 2 * v + 3 * i
        rows.append({"op": "dot", "device_label": "host (cpu)", "variant_id": f"host/dot/v{v:02d}", "precision": "S",
                     "size_x": float(n), "size_label": "n (elements)", "unit": "GB/s", "rate": r,
                     "rate_lo": r * 0.98, "rate_hi": r * 1.02})
ok = pd.DataFrame(rows)
for name, data in (("wide", ok), ("narrow", ok.assign(rate=40 + ok["size_x"] / 2**16, rate_lo=40, rate_hi=41))):
    fig = plots.rate_vs_size(data)[0].fig
    fig.canvas.draw()
    c = plots.figure_checks(fig)
    ax = c["axes"][0]
    print(name, "x", ax["x"], "y", ax["y"], "series", c["series"], "styles", c["styles"], "overlaps", c["legend_overlaps"])
)py");
  auto r = run_shell(python() + " " + (d.path() / "check.py").string() + " " + source_dir() + "/python");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* name : {"wide", "narrow"}) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, std::regex(std::string(name) +
        R"( x (\d+) y (\d+) series (\d+) styles (\d+) overlaps (\d+))"))) << r.output;
    EXPECT_GE(std::stoi(m[1]), 2) << name;
    EXPECT_GE(std::stoi(m[2]), 2) << name << ": the rate axis has too few tick labels";
    EXPECT_EQ(m[3], "12") << name;
    EXPECT_EQ(m[4], "12") << name << ": series share a style";
    EXPECT_EQ(m[5], "0") << name << ": the legend covers a panel";
  }
}

TEST_F(Report, PythonReaderGivesOneRowPerPoint) {
  const auto& sweep = experiments_.at(1);
  const auto records = hetbench::read_results(sweep);
  const std::string script = fmt::format(R"(
import sys; sys.path.insert(0, "{}/python")
import hetbench
df = hetbench.read_experiment("{}")
print("rows", len(df), "name", df.attrs["experiment"]["name"])
r = df[df.op == "axpy"].iloc[0]
print("axpy", int(r.size_n), len(r.samples), int(r.n), r.variant_id)
both = hetbench.read_experiments({})
print("all", len(both), both.experiment.nunique(), len(both.attrs["experiments"]))
)",
                                         source_dir(), sweep, "[\"" + experiments_[1] + "\", \"" + experiments_[2] + "\"]");
  write_text(fs::path(sweep).parent_path() / "reader.py", script);
  auto r = run_shell(python() + " " + (fs::path(sweep).parent_path() / "reader.py").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(fmt::format("rows {} name report", records.size())));
  const auto& axpy = *std::find_if(records.begin(), records.end(), [](const auto& j) { return j["op"] == "axpy"; });
  EXPECT_THAT(r.output, HasSubstr(fmt::format("axpy {} {} {} {}", axpy["sizes"]["n"].template get<int>(),
                                              axpy["timing"]["samples"].size(), axpy["timing"]["seconds"]["n"].template get<int>(),
                                              axpy["variant_id"].template get<std::string>())));
  EXPECT_THAT(r.output, HasSubstr(fmt::format("all {} 2 2", records.size() + hetbench::read_results(experiments_[2]).size())));
}

TEST_F(Report, BadInputGivesOneClearError) {
  TempDir d;
  // Not an experiment.
  auto r = run_hetbench("report " + d.str() + " -o " + (d.path() / "r").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("is not an experiment folder: it has no experiment.json"));
  // A copy of the sweep, then damaged.
  const auto copy = d.path() / "exp";
  fs::copy(experiments_.at(1), copy);
  std::ifstream in(copy / "results.jsonl");
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_GE(lines.size(), 4u);
  auto write_lines = [&](std::vector<std::string> ls, bool final_newline) {
    std::ofstream f(copy / "results.jsonl");
    for (std::size_t i = 0; i < ls.size(); ++i) f << ls[i] << (i + 1 < ls.size() || final_newline ? "\n" : "");
  };
  // Hand-edited: a line cut in the middle is named with its number.
  auto edited = lines;
  edited[1] = edited[1].substr(0, edited[1].size() / 2);
  write_lines(edited, true);
  r = run_hetbench("report " + copy.string() + " -o " + (d.path() / "r").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("results.jsonl' has a corrupt line 2"));
  // Valid JSON that is no record: the reader names the line.
  edited = lines;
  edited[2] = "[1, 2, 3]";
  write_lines(edited, true);
  r = run_hetbench("report " + copy.string() + " -o " + (d.path() / "r").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("results.jsonl' line 3: a record must be a JSON object"));
  // A torn last line (a killed run) is skipped by both readers, as by every command.
  edited = lines;
  edited.back() = edited.back().substr(0, 40);
  write_lines(edited, false);
  const std::string script = fmt::format("import sys; sys.path.insert(0, '{}/python'); import hetbench; "
                                         "print('rows', len(hetbench.read_experiment('{}')))",
                                         source_dir(), copy.string());
  r = run_shell(python() + " -c \"" + script + "\"");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(fmt::format("rows {}", lines.size() - 1)));
  // A Python without matplotlib and pandas (-S leaves out the site packages): one line
  // saying what to install.
  write_lines(lines, true);
  const auto bare = d.path() / "bare-python";
  write_text(bare, "#!/bin/sh\nexec " + python() + " -S \"$@\"\n");
  fs::permissions(bare, fs::perms::owner_all);
  r = run_hetbench("report " + copy.string() + " -o " + (d.path() / "r").string(), "HETBENCH_PYTHON=" + bare.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("install python3-pandas python3-matplotlib"));
  r = run_hetbench("report " + copy.string() + " -o " + (d.path() / "r").string(), "HETBENCH_PYTHON=/nonexistent/python");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("HETBENCH_PYTHON='/nonexistent/python' is not an executable file"));
}

}  // namespace
