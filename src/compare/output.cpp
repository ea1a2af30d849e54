#include "compare/output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetbench/op.hpp"
#include "util/text_table.hpp"

namespace hetbench {

namespace {

const Verdict kVerdicts[] = {Verdict::faster, Verdict::slower, Verdict::same, Verdict::ambiguous, Verdict::invalid};

std::string compact(const nlohmann::json& obj) {
  if (obj.contains("input") && obj["input"].is_string()) return obj["input"].get<std::string>();
  std::string s;
  for (auto it = obj.begin(); it != obj.end(); ++it)
    s += fmt::format("{}{}={}", s.empty() ? "" : ",", it.key(), it.value().dump());
  return s;
}

std::string seconds_text(double s) {
  if (s < 1e-3) return fmt::format("{:.3f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.4f} ms", s * 1e3);
  return fmt::format("{:.4f} s", s);
}

nlohmann::json side_json(const nlohmann::json& r) {
  nlohmann::json j = {{"point", r["point"]}, {"status", r["status"]}};
  if (auto t = recorded_timing(r))
    j.update({{"median_s", t->median},
              {"ci_lo_s", t->lo},
              {"ci_hi_s", t->hi},
              {"n", r["timing"].contains("samples") ? r["timing"]["samples"].size() : 0}});
  if (r.contains("timing") && r["timing"].contains("round_spread")) j["round_spread"] = r["timing"]["round_spread"];
  if (r.contains("validation")) j["validation_passed"] = r["validation"].value("passed", false);
  return j;
}

using Table = std::vector<std::vector<std::string>>;

// A verdict judged with a threshold wider than --threshold says which (docs/compare.md).
bool widened(const Judgement& j, const Comparison& c) { return j.verdict != Verdict::invalid && j.threshold > c.threshold; }
std::string verdict_cell(const Judgement& j) {
  std::string s(to_string(j.verdict));
  if (j.threshold_from != "--threshold") s += fmt::format(" (t {:.2f}%: {})", 100 * j.threshold, j.threshold_from);
  return s;
}

std::string timing_cell(const nlohmann::json& r) {
  auto t = recorded_timing(r);
  if (!t) return r["status"].get<std::string>();
  return fmt::format("{} ±{:.2f}%", seconds_text(t->median), 100 * t->rel_half_width());
}

Table pair_rows(const Comparison& c, bool with_side) {
  Table t{{"op", "variant", "device", "prec", "size", "reference", "candidate", "ratio", "interval", "verdict"}};
  if (with_side) t[0].insert(t[0].begin(), "vs");
  for (const auto& p : c.pairs) {
    const auto& r = *p.ref;
    auto named = [](const nlohmann::json& x) {
      std::string v = x["variant"].get<std::string>();
      return x["params"].empty() ? v : v + " " + compact(x["params"]);
    };
    const std::string variant = p.best_own ? "best own: " + named(r) + " | " + named(*p.cand) : named(r);
    std::vector<std::string> row{
        r["op"], variant, r["device"], r["precision"],
        compact(meaningful_sizes(r.value("op", ""), r.value("precision", ""), r["sizes"])), timing_cell(r),
        timing_cell(*p.cand)};
    if (p.j.verdict == Verdict::invalid)
      row.insert(row.end(), {"", ""});
    else
      row.insert(row.end(), {fmt::format("{:.4f}", p.j.ratio), fmt::format("[{:.4f}, {:.4f}]", p.j.lo, p.j.hi)});
    row.push_back(verdict_cell(p.j));
    if (with_side) row.insert(row.begin(), c.labels[p.side]);
    t.push_back(std::move(row));
  }
  return t;
}

// Machine-readable: numbers in seconds, one column each.
Table csv_rows(const Comparison& c) {
  Table t{{"candidate",     "op",         "variant_id",   "device",   "precision", "sizes",      "params",
           "ref_point",     "ref_status", "ref_median_s", "ref_lo_s", "ref_hi_s",  "cand_point", "cand_status",
           "cand_median_s", "cand_lo_s",  "cand_hi_s",    "ratio",    "ratio_lo",  "ratio_hi",   "verdict",
           "threshold_pct", "threshold_from"}};
  auto timing = [](const nlohmann::json& r, std::vector<std::string>& row) {
    row.push_back(r["point"].dump());
    row.push_back(r["status"]);
    auto m = recorded_timing(r);
    for (double v : {m ? m->median : 0, m ? m->lo : 0, m ? m->hi : 0}) row.push_back(m ? fmt::format("{:.9g}", v) : "");
  };
  for (const auto& p : c.pairs) {
    const auto& r = *p.ref;
    const std::string id = p.best_own ? "best own: " + r["variant_id"].get<std::string>() + " | " +
                                            (*p.cand)["variant_id"].get<std::string>()
                                      : r["variant_id"].get<std::string>();
    std::vector<std::string> row{c.labels[p.side],    r["op"],        id,
                                 r["device"],         r["precision"], compact(r["sizes"]),
                                 compact(r["params"])};
    timing(r, row);
    timing(*p.cand, row);
    const bool timed = p.j.verdict != Verdict::invalid;
    for (double v : {p.j.ratio, p.j.lo, p.j.hi}) row.push_back(timed ? fmt::format("{:.6g}", v) : "");
    row.push_back(std::string(to_string(p.j.verdict)));
    row.push_back(timed ? fmt::format("{:.6g}", 100 * p.j.threshold) : "");
    row.push_back(timed ? p.j.threshold_from : "");
    t.push_back(std::move(row));
  }
  return t;
}

Table group_rows(const Comparison& c) {
  Table t{{"vs", "group", "pairs", "faster", "slower", "same", "ambiguous", "invalid", "geomean ratio", "speedup"}};
  for (const auto& g : summarize(c)) {
    int n = 0;
    for (const auto& [v, k] : g.counts) n += k;
    std::vector<std::string> row{g.candidate, g.group, std::to_string(n)};
    for (auto v : kVerdicts) row.push_back(std::to_string(g.counts.count(v) ? g.counts.at(v) : 0));
    row.push_back(g.timed ? fmt::format("{:.4f}", g.geomean) : "");
    row.push_back(g.timed ? fmt::format("{:.3f}x", 1 / g.geomean) : "");
    t.push_back(std::move(row));
  }
  return t;
}

void print_table(const Table& t, bool md) { fmt::print("{}", md ? markdown_table(t) : aligned_table(t)); }

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string counts_line(const Comparison& c) {
  std::string s;
  for (const auto& [v, n] : verdict_counts(c)) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", n, to_string(v));
  return s;
}

}  // namespace

std::map<Verdict, int> verdict_counts(const Comparison& c) {
  std::map<Verdict, int> m;
  for (const auto& p : c.pairs) ++m[p.j.verdict];
  return m;
}

std::vector<GroupSummary> summarize(const Comparison& c) {
  std::vector<GroupSummary> out;
  std::vector<double> log_sum;
  for (const auto& p : c.pairs) {
    const auto& cand = c.labels[p.side];
    const auto group = pair_group(p, c.attr);
    auto it =
        std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.candidate == cand && g.group == group; });
    if (it == out.end()) {
      out.push_back({cand, group, {}, 0, 0});
      log_sum.push_back(0);
      it = out.end() - 1;
    }
    ++it->counts[p.j.verdict];
    if (p.j.verdict != Verdict::invalid) {
      ++it->timed;
      log_sum[static_cast<std::size_t>(it - out.begin())] += std::log(p.j.ratio);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i].timed) out[i].geomean = std::exp(log_sum[i] / out[i].timed);
  return out;
}

nlohmann::json to_json(const Comparison& c) {
  nlohmann::json pairs = nlohmann::json::array(), groups = nlohmann::json::array(), counts = nlohmann::json::object(),
                 unpaired = nlohmann::json::object();
  for (const auto& p : c.pairs) {
    const auto& r = *p.ref;
    nlohmann::json j = {{"candidate", c.labels[p.side]},
                        {"op", r["op"]},
                        {"variant", r["variant"]},
                        {"variant_id", r["variant_id"]},
                        {"device", r["device"]},
                        {"precision", r["precision"]},
                        {"sizes", r["sizes"]},
                        {"params", r["params"]},
                        {"reference_point", side_json(r)},
                        {"candidate_point", side_json(*p.cand)},
                        {"verdict", to_string(p.j.verdict)},
                        {"why", p.j.why}};
    if (c.attr != "experiment" && c.attr != "commit")
      j["candidate_" + c.attr] = (*p.cand)[c.attr == "variant" ? "variant_id" : c.attr];
    j["pairing"] = p.best_own ? "best own" : "same variant";
    if (p.best_own) {
      j["candidate_variant_id"] = (*p.cand)["variant_id"];
      j["candidate_params"] = (*p.cand)["params"];
    }
    if (p.j.verdict != Verdict::invalid)
      j.update({{"ratio", p.j.ratio},
                {"ratio_lo", p.j.lo},
                {"ratio_hi", p.j.hi},
                {"threshold_pct", 100 * p.j.threshold},
                {"threshold_from", p.j.threshold_from}});
    pairs.push_back(std::move(j));
  }
  for (const auto& g : summarize(c)) {
    nlohmann::json k = nlohmann::json::object();
    for (const auto& [v, n] : g.counts) k[std::string(to_string(v))] = n;
    groups.push_back({{"candidate", g.candidate},
                      {"group", g.group},
                      {"counts", k},
                      {"timed", g.timed},
                      {"geomean_ratio", g.timed ? nlohmann::json(g.geomean) : nlohmann::json(nullptr)}});
  }
  for (const auto& [v, n] : verdict_counts(c)) counts[std::string(to_string(v))] = n;
  for (std::size_t i = 0; i < c.labels.size(); ++i) unpaired[c.labels[i]] = c.unpaired[i];
  return {{"reference", c.labels[0]},
          {"by", c.attr},
          {"threshold_pct", c.threshold * 100},
          {"max_threshold_pct", c.max_threshold * 100},
          {"rule",
           "ratio interval [cand.lo/ref.hi, cand.hi/ref.lo] of the medians' 95% intervals: above 1+t slower, "
           "below 1/(1+t) faster, within [1/(1+t), 1+t] same, else ambiguous; t = max(threshold, the round spread "
           "of either side); a same with t above max_threshold is ambiguous"},
          {"pairs", pairs},
          {"groups", groups},
          {"counts", counts},
          {"unpaired", unpaired}};
}

void print_comparison(const Comparison& c, const std::string& format) {
  if (format == "json") {
    fmt::print("{}\n", to_json(c).dump(2));
    return;
  }
  if (format == "csv") {
    for (const auto& row : csv_rows(c)) {
      std::string l;
      for (const auto& cell : row) l += (l.empty() ? "" : ",") + csv_cell(cell);
      fmt::print("{}\n", l);
    }
    return;
  }
  const bool with_side = c.labels.size() > 2 || c.attr != "experiment";
  const Table pairs = pair_rows(c, with_side);
  const bool md = format == "md";
  fmt::print("reference: {}; threshold {:g}%\n\n", c.labels[0], c.threshold * 100);
  print_table(pairs, md);
  fmt::print("\n");
  print_table(group_rows(c), md);
  fmt::print("\n{} pairs: {}", c.pairs.size(), counts_line(c));
  for (std::size_t i = 0; i < c.labels.size(); ++i)
    if (c.unpaired[i]) fmt::print("; {} point(s) of {} unpaired", c.unpaired[i], c.labels[i]);
  fmt::print("\n");
  int wide = 0, too_wide = 0;
  double widest = c.threshold;
  for (const auto& p : c.pairs)
    if (widened(p.j, c)) {
      ++wide;
      widest = std::max(widest, p.j.threshold);
      // faster and slower stand on any threshold: only the pairs left ambiguous count here.
      too_wide += p.j.verdict == Verdict::ambiguous && p.j.threshold > c.max_threshold;
    }
  fmt::print("threshold: {:g}% (--threshold){}\n", c.threshold * 100,
             wide ? fmt::format("; {} pair(s) judged with a wider one, up to {:.2f}%, their recorded round spread "
                                "(the medians of rounds on freshly allocated buffers differ by that much)",
                                wide, 100 * widest)
                  : std::string());
  if (too_wide)
    fmt::print("{} pair(s) too noisy to be called the same: their threshold is above --max-threshold {:g}%\n", too_wide,
               c.max_threshold * 100);
}

}  // namespace hetbench
