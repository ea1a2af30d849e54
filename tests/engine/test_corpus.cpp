// A corpus run keeps going: among several --matrix files, one that cannot be read becomes
// an error record (stage "input") per point that would have used it, naming the file and
// the line, and the other files are measured and validated; the run exits 1. A lone bad
// file, and a generator with bad arguments, are still bad input (exit 2, nothing recorded).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "engine/record/results.hpp"
#include "io/matrix_market.hpp"
#include "sparse/generators.hpp"
#include "test_util.hpp"
#include "util/json_file.hpp"

using namespace hetbench;
using testing::HasSubstr;

namespace {

std::string read_text(const std::filesystem::path& p) { return read_text_file(p.string()); }

// The first `lines` lines of a file.
std::string head(const std::string& text, int lines) {
  std::size_t at = 0;
  for (int i = 0; i < lines && at != std::string::npos; ++i) at = text.find('\n', at) + 1;
  return text.substr(0, at);
}

struct Corpus {
  test::TempDir dir;
  std::vector<std::string> good, bad;
  std::map<std::string, std::string> bad_says;  // file -> "name:line: why" part of the message

  explicit Corpus(std::uint64_t seed) {
    int i = 0;
    for (const char* spec : {"gen:random:n=400,per_row=6,empty=0.1", "gen:powerlaw:n=600,avg=5", "gen:poisson2d:n=15"}) {
      const auto p = dir.str() + "/good" + std::to_string(i++) + ".mtx";
      write_matrix_market(generate_matrix(spec, seed + i), p);
      good.push_back(p);
    }
    // A good file that departs harmlessly: read with one warning, measured like the others.
    const std::string text = read_text(good[0]);
    test::write_text(dir.path() / "lenient.mtx", head(text, 2) + "% a comment after the size line\n" +
                                                     text.substr(head(text, 2).size()));
    good.push_back(dir.str() + "/lenient.mtx");
    // Truncated after 10 entries (lines 3..12 hold them).
    add_bad("truncated.mtx", head(text, 12), "truncated.mtx:12: the file ends after 10 of the");
    add_bad("banner.mtx", "%%MatrixMarkt matrix coordinate real general\n" + text.substr(head(text, 1).size()),
            "banner.mtx:1: missing the");
    // Line 7 gets a row index one past the last row.
    std::string range = head(text, 6) + "401 1 1.0\n" + text.substr(head(text, 7).size());
    add_bad("range.mtx", range, "range.mtx:7: row index '401' is out of range 1..400");
    add_bad("missing.mtx", "", "missing.mtx: cannot open the file");
    std::filesystem::remove(dir.path() / "missing.mtx");
  }
  void add_bad(const std::string& name, const std::string& text, const std::string& says) {
    test::write_text(dir.path() / name, text);
    bad.push_back(dir.str() + "/" + name);
    bad_says[bad.back()] = says;
  }
  // Good and bad interleaved, so that a bad one between good ones must not stop them.
  std::string matrices() const {
    std::string s;
    for (std::size_t i = 0; i < std::max(good.size(), bad.size()); ++i) {
      if (i < good.size()) s += " --matrix " + good[i];
      if (i < bad.size()) s += " --matrix " + bad[i];
    }
    return s;
  }
};

TEST(Corpus, BadFilesBecomeErrorRecordsAndTheOthersAreMeasured) {
  Corpus c(test::fresh_seed());
  test::TempDir out;
  const auto r = test::run_hetbench("run spmv --device host,opencl --precision D --reps 2 --warmup 0" + c.matrices() +
                                    " --out " + out.str());
  ASSERT_EQ(r.status, 1) << r.output;
  const auto dir = test::only_experiment(out.path());
  const auto recs = read_results(dir);
  std::map<std::string, std::map<std::string, int>> per_input;  // input -> device -> points
  int errors = 0;
  for (const auto& rec : recs) {
    const std::string input = rec["sizes"].value("input", "");
    per_input[input][rec.value("device", "")]++;
    SCOPED_TRACE(test::describe(rec));
    EXPECT_EQ(rec.value("op", ""), "spmv");
    EXPECT_EQ(rec.value("precision", ""), "D");
    EXPECT_FALSE(rec.value("variant", "").empty());
    if (c.bad_says.count(input)) {
      ++errors;
      EXPECT_EQ(rec.value("status", ""), "error");
      EXPECT_EQ(rec.value("error_stage", ""), "input");
      EXPECT_THAT(rec.value("message", ""), HasSubstr(c.bad_says[input]));
      EXPECT_FALSE(rec.contains("timing"));
    } else {
      EXPECT_EQ(rec.value("status", ""), "ok");
      EXPECT_LE(rec["validation"]["max_err_over_bound"].get<double>(), 1.0);
      EXPECT_GT(rec["sizes"].value("nnz", 0), 0);
    }
  }
  // Every input has the same points on each device: a bad file costs its points only.
  ASSERT_EQ(per_input.size(), c.good.size() + c.bad.size());
  for (const auto& [input, devices] : per_input) {
    EXPECT_EQ(devices, per_input.at(c.good[0])) << input;
    EXPECT_EQ(devices.size(), 2u) << input << ": host and PoCL";
  }
  // experiment.json lists the unreadable inputs and counts their points as errors.
  const auto exp = read_json_file((dir / "experiment.json").string());
  EXPECT_EQ(exp["status"], "complete");
  EXPECT_EQ(exp["errors"], errors);
  ASSERT_EQ(exp["unreadable_inputs"].size(), c.bad.size());
  for (const auto& u : exp["unreadable_inputs"])
    EXPECT_THAT(u.value("message", ""), HasSubstr(c.bad_says[u.value("input", "")]));
  // results.csv and the table show each one as an error with the reader's message.
  const std::string csv = read_text(dir / "results.csv");
  for (const auto& b : c.bad) EXPECT_THAT(csv, HasSubstr(c.bad_says[b])) << b;
  EXPECT_THAT(r.output, HasSubstr("cannot read input '" + c.bad[1] + "', its points are recorded as errors: "));
  // The lenient file was read once: its warning is said once.
  const std::string warning = "hetbench: warning: " + c.good.back() + ":3: a comment line after the size line";
  EXPECT_THAT(r.output, HasSubstr(warning));
  EXPECT_EQ(r.output.find(warning), r.output.rfind(warning));
}

// --variant auto has nothing to choose by: the record says so, and names the pool's first.
TEST(Corpus, AutoPointsOfAnUnreadableInputSayNoChoiceWasMade) {
  Corpus c(5);
  test::TempDir out;
  const auto r = test::run_hetbench("run spmv --device host --variant auto --precision S --reps 1 --warmup 0 --matrix " +
                                    c.good[2] + " --matrix " + c.bad[0] + " --out " + out.str());
  ASSERT_EQ(r.status, 1) << r.output;
  const auto recs = read_results(test::only_experiment(out.path()));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0]["auto"]["chosen"], recs[0]["variant_id"]);
  EXPECT_EQ(recs[1].value("error_stage", ""), "input");
  EXPECT_TRUE(recs[1]["auto"]["chosen"].is_null()) << recs[1].dump();
  EXPECT_EQ(recs[1]["auto"]["reason"], "the input could not be read");
}

TEST(Corpus, ALoneBadFileOrABadGeneratorIsStillBadInput) {
  Corpus c(7);
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {" --matrix " + c.bad[2], c.bad_says[c.bad[2]]},
           {" --matrix " + c.bad[3], c.bad_says[c.bad[3]]},
           {" --matrix " + c.good[0] + " --matrix gen:poisson3d:n=0", "gen:poisson3d:n=0"},
           {" --matrix " + c.good[0] + " --matrix gen:nosuch:n=4", "unknown generator 'nosuch'"}}) {
    test::TempDir out;
    const auto r = test::run_hetbench("run spmv --device host --reps 1 --warmup 0" + args + " --out " + out.str());
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(says)) << args;
    EXPECT_TRUE(std::filesystem::is_empty(out.path())) << "nothing is recorded for bad input: " << args;
  }
}

}  // namespace
