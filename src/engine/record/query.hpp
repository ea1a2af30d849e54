// One query over point records (docs/results-query.md): which records, grouped by what,
// the best of each group by a metric, a ratio against a baseline in the same group, a
// summary over the groups (geometric mean, minimum, maximum) and a target met or missed.
// The table's best-only view, ceilings, the device report's measurements and `hetbench
// check` all ask it, so that "the best" and "the ratio" mean one thing everywhere.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench::query {

// A field of a record by dotted path ("timing.seconds.median", "auto.chosen"); nullptr
// where absent.
const nlohmann::json* field(const nlohmann::json& r, const std::string& path);

// Records whose fields match: each key a dotted path, each value a string, a number, a
// bool, a list of those (any of them), or "*" (the field is present). Strings compare with
// the field's string, other values by JSON equality. A list of such objects selects the
// records any of them matches (a union: "split_bf16, or split_tf32 with SLICES 2 or 3").
struct Selection {
  nlohmann::json match = nlohmann::json::object();
  bool matches(const nlohmann::json& r) const;
  std::vector<nlohmann::json> alternatives() const;  // the objects of a union, or the one
  // {"op": "gemm", "variant": ["cublas", "cusparse"]}, or a list of such objects; Error
  // naming `where` and the key for a value of another kind.
  static Selection from_json(const nlohmann::json& j, const std::string& where);
  // "op=gemm,kind=kernel,variant=cublas|cusparse" (the command line's form).
  static Selection parse(const std::string& text);
};

// What a group's best is best by. "rate": the op's headline (GFLOP/s for an op rated by
// flops whose record has them, else GB/s); "time": the median seconds, lower is better;
// any other name a record's numeric field by dotted path, or at one level down
// ("smem_gbs" inside "features.derived") as the device report's entries name them.
struct Metric {
  std::string name = "rate";
  bool lower_is_better = false;
  std::optional<double> of(const nlohmann::json& r) const;
  // "rate", "time", "gbs", "timing.seconds.median:lower" (":lower" or ":higher" sets the
  // direction; a name starting with "time" is lower-is-better by default).
  static Metric parse(const std::string& text);
  bool better(double a, double b) const { return lower_is_better ? a < b : a > b; }
};

// A record's headline rate and its unit, as Metric "rate" takes it: GFLOP/s for an op rated
// by flops whose record has them, else GB/s (else GFLOP/s where only those are there).
std::optional<std::pair<double, const char*>> headline_rate(const nlohmann::json& r);

// The key of a record's group: the fields named, joined. "sizes" is the whole sizes
// object; "experiment" the folder a reader tagged the record with.
using GroupKey = std::function<std::string(const nlohmann::json&)>;
GroupKey group_by(const std::vector<std::string>& fields);
// Every record in one group.
GroupKey one_group();
const std::vector<std::string>& default_group_fields();  // experiment, device, op, precision, sizes

struct Best {
  std::string group;
  nlohmann::json record;
  double value = 0;
  std::size_t index = 0;  // of the record in the list it was chosen from
};
struct BestSet {
  std::vector<Best> groups;  // in the order of each group's first record
  int seen = 0;              // records selected
  int failed = 0;            // of them, not ok (skipped ones not counted)
  int without_metric = 0;    // ok, but without the metric
  // Why nothing was found: "no point was recorded", "none of its 3 points passed", "its
  // records carry no 'gbs'"; "" when a group was.
  std::string why_empty(const Metric& m) const;
};
// The best ok record of each group among the selected ones.
BestSet best_per_group(const std::vector<nlohmann::json>& records, const Selection& sel, const Metric& m,
                       const GroupKey& key);
// The same over records held elsewhere (compare's sides): Best::index says which.
BestSet best_per_group(const std::vector<const nlohmann::json*>& records, const Selection& sel, const Metric& m,
                       const GroupKey& key);

// The table's best-only view: per group the fastest ok record, except that a failing point
// (neither ok nor skipped) always shows in place of the group's best, and a skipped one
// only where nothing else is there.
std::vector<nlohmann::json> best_or_failure_per_group(const std::vector<nlohmann::json>& records, const Metric& m,
                                                      const GroupKey& key);

// Own best against the baseline's best in the same group, oriented so that > 1 means the
// own is better (own/base for rates, base/own for times). Groups with no baseline or no own
// record are listed in `unpaired`.
struct Ratio {
  std::string group;
  Best own, base;
  double ratio = 0;
};
struct Ratios {
  std::vector<Ratio> pairs;
  std::vector<std::string> unpaired;  // "GROUP: no baseline" / "GROUP: no own record"
};
Ratios ratios(const std::vector<nlohmann::json>& records, const Selection& own, const Selection& baseline,
              const Metric& m, const GroupKey& key);

struct Summary {
  std::size_t n = 0;
  double geomean = 0, min = 0, max = 0;
  std::string min_at, max_at;  // the groups of the extremes
};
// Over values with the group each came from; n == 0 for none. Values must be positive.
Summary summarize(const std::vector<std::pair<std::string, double>>& values);
Summary summarize(const Ratios& r);
Summary summarize(const BestSet& b);

// A target over a summary: its statistic (geomean, min or max) at least or at most a value.
struct Target {
  std::string stat = "geomean";
  std::optional<double> at_least, at_most;
  // {"report": true} and no bound: a figure the campaign prints (a published comparison,
  // a model's input), never met or missed.
  bool report = false;
  // {"stat": "min", "at_least": 0.95}; Error naming `where` for a bad field.
  static Target from_json(const nlohmann::json& j, const std::string& where);
  std::string text() const;  // "geomean >= 0.95", "geomean (reported)"
};
struct Verdict {
  bool met = false;
  double figure = 0;  // the statistic measured
  std::string text;   // "met: geomean 0.973 >= 0.95 over 12 groups (min 0.91 at ...)"
};
// A summary of no groups misses every target.
Verdict check(const Target& t, const Summary& s);

}  // namespace hetbench::query

namespace hetbench::query {

// A record's parameters as "K=V,K=V" (JSON values), "" for none; a point as
// "variant_id[K=V,...]".
std::string params_text(const nlohmann::json& params);
std::string point_label(const nlohmann::json& record);
// A problem as tables show it: a matrix by its input (and nnz), else "k=997,m=3001,n=5003"
// without the axes the precision ignores and with a choice by name (meaningful_sizes).
std::string sizes_text(const std::string& op, const std::string& precision, const nlohmann::json& sizes);

// One target of a campaign spec (`hetbench check`, docs/results-query.md): which records
// (`select`), optionally against which (`baseline`, the ratio then being the figure),
// grouped by which fields (`by`), by which metric, and the target over the groups.
struct Check {
  std::string name, description;
  Selection select;
  std::optional<Selection> baseline;
  std::vector<std::string> by = default_group_fields();
  Metric metric;
  Target target;
  // A yardstick that is a fact of the device, not a record: the dotted path of a number
  // in the device's description in experiment.json (`per_device`, e.g.
  // "extra.pcie_practical_gbs"); each group's best is divided by it. Readers put the
  // description into each record as "device_facts" (cmd_check.cpp). Empty: none.
  std::string per_device;
  // One entry of a spec's "targets"; Error naming `where` and the key for an unknown key or
  // a bad value.
  static Check from_json(const nlohmann::json& j, const std::string& where);
};
// A spec's "targets" array (Error naming the file and index); empty when it has none.
std::vector<Check> checks_of(const nlohmann::json& spec, const std::string& path);

struct CheckResult {
  struct Row {
    std::string group, own;  // the own point as variant[params]
    double value = 0;
    std::string base;  // with a baseline: its point, figure and the ratio
    double base_value = 0, ratio = 0;
  };
  std::vector<Row> rows;
  std::vector<std::string> unpaired;
  Summary summary;
  Verdict verdict;
  nlohmann::json to_json(const Check& c) const;
};
CheckResult evaluate(const Check& c, const std::vector<nlohmann::json>& records);

}  // namespace hetbench::query
