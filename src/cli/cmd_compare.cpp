// hetbench compare A B [...] [--by ATTR=X,Y]: pairs the points of experiments and judges
// each pair faster, slower, same or ambiguous (docs/compare.md).
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "compare/folder.hpp"
#include "compare/output.hpp"
#include "compare/pairing.hpp"
#include "hetbench/error.hpp"

namespace hetbench::cli {

namespace {

const char* const kRuleHelp =
    "Rule: r = candidate/reference median time; its interval [cand.lo/ref.hi, cand.hi/ref.lo] from the medians' "
    "distribution-free 95% intervals (every recorded sample). Above 1+t: slower; below 1/(1+t): faster; within "
    "[1/(1+t), 1+t]: same; otherwise ambiguous (t = --threshold, or a side's recorded round spread where wider; "
    "a same whose t is above --max-threshold is ambiguous). A side not timed (failed, error, skipped): invalid. "
    "The clear gap is nvbench's robust compare's (NVIDIA/nvbench, docs/nvbench_compare_robust.md); same is an "
    "equivalence test (Schuirmann's two one-sided tests). Exit: 0, 1 with --fail-on when a pair has such a verdict, "
    "2 on bad input.";

}  // namespace

Command add_compare(CLI::App& app) {
  auto* sub = app.add_subcommand("compare",
                                 "pair the points of experiments and judge each pair faster, slower, same or "
                                 "ambiguous");
  sub->footer(kRuleHelp);
  struct Opts {
    std::vector<std::string> dirs, fail_on;
    std::string by = "experiment", format = "table";
    double threshold = 2, max_threshold = 100 * kMaxThreshold;
    StoredExperiments stored;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("experiments", o->dirs, "experiment folders, or store:ID of stored ones; the first is the reference")
      ->required();
  o->stored.add_option(sub);
  sub->add_option("--by", o->by,
                  "what differs: experiment (each folder), or device, variant, precision or commit with the values "
                  "to compare, reference first, e.g. device=cuda:0,opencl:0:0")
      ->capture_default_str();
  sub->add_option("--threshold", o->threshold, "equivalence threshold t, percent of the reference time")
      ->capture_default_str();
  sub->add_option("--max-threshold", o->max_threshold,
                  "the widest threshold (percent) a same may rest on, after round spreads widened it")
      ->capture_default_str();
  sub->add_option("--format", o->format, "stdout format")
      ->check(CLI::IsMember({"table", "json", "csv", "md"}))
      ->capture_default_str();
  sub->add_option("--fail-on", o->fail_on, "exit 1 when any pair has one of these verdicts (slower, ambiguous, ...)")
      ->delimiter(',');
  return {sub, [o] {
            const double t = threshold_fraction(o->threshold);
            const double most = max_threshold_fraction(o->max_threshold, t);
            const auto fail_on = parse_verdicts(o->fail_on);
            const auto by = parse_compare_by(o->by);
            std::vector<RecordedExperiment> exps;
            for (const auto& d : o->stored.folders(o->dirs)) exps.push_back(read_experiment(d));
            const auto c = compare_sides(make_sides(exps, by), by.attr, t, most);
            print_comparison(c, o->format);
            return gate(c, fail_on);
          }};
}

}  // namespace hetbench::cli
