// A comparison on stdout: the pairs with their verdicts, the geometric-mean summary per
// group and the verdict counts, as a table, markdown, CSV or JSON (docs/compare.md).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compare/pairing.hpp"

namespace hetbench {

struct GroupSummary {
  std::string candidate, group;
  std::map<Verdict, int> counts;
  int timed = 0;       // pairs with both sides timed
  double geomean = 0;  // of candidate / reference median time over those; 0 when none
};
// Per candidate side and group, in order of first appearance.
std::vector<GroupSummary> summarize(const Comparison& c);
std::map<Verdict, int> verdict_counts(const Comparison& c);

nlohmann::json to_json(const Comparison& c);
// format: table, md, csv (the pairs only, one row each), json.
void print_comparison(const Comparison& c, const std::string& format);

}  // namespace hetbench
