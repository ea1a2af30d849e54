#include "engine/record/report.hpp"

#include <algorithm>
#include <map>
#include <fstream>
#include <filesystem>

#include <fmt/format.h>

#include "engine/record/query.hpp"
#include "hetbench/error.hpp"
#include "engine/record/results.hpp"
#include "util/text_table.hpp"

namespace hetbench {

std::string format_seconds(double s) {
  if (s < 1e-3) return fmt::format("{:.2f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

namespace {

std::string sizes_str(const nlohmann::json& r) {
  return query::sizes_text(r.value("op", ""), r.value("precision", ""), r.value("sizes", nlohmann::json::object()));
}

double num(const nlohmann::json& r, const char* k) { return r.contains(k) && r[k].is_number() ? r[k].get<double>() : -1; }

// Columns: device op prec size variant | median samples noise GB/s GFLOP/s %ceil err/bound | status.
// samples: the timed repetitions; noise: the median's 95 % interval half-width relative to
// it (nvbench's table shows samples and noise beside the time). An interval ten times the
// median's width or more (a few samples with one far off: with 3, the interval is their
// range) reads ">999%": its digits would say nothing more; the record keeps the number.
std::vector<std::string> row(const nlohmann::json& r) {
  std::string t, gbs, gfl, err, pct, samples, noise;
  if (r.contains("timing")) {
    const auto& tm = r["timing"];
    t = format_seconds(tm["seconds"]["median"].get<double>());
    if (tm.contains("reps") && tm["reps"].is_number()) samples = fmt::format("{}", tm["reps"].get<long long>());
    if (tm.contains("rel_half_width") && tm["rel_half_width"].is_number()) {
      const double rel = tm["rel_half_width"].get<double>();
      noise = rel >= 10 ? ">999%" : fmt::format("{:.2f}%", 100 * rel);
    }
  }
  if (num(r, "gbs") >= 0) gbs = fmt::format("{:.2f}", num(r, "gbs"));
  if (num(r, "gflops") > 0) gfl = fmt::format("{:.2f}", num(r, "gflops"));
  if (num(r, "pct_ceiling") >= 0) pct = fmt::format("{:.1f}%", num(r, "pct_ceiling"));
  if (r.contains("validation")) err = fmt::format("{:.2e}", r["validation"]["max_err_over_bound"].get<double>());
  // An op declared by data has no bound (ops/declared_op.cpp): its check is not a ratio.
  if (r.contains("validation") && r["validation"].value("bound", "").rfind("none", 0) == 0) err = "no bound";
  return {r.value("device", ""), r.value("op", ""),  r.value("precision", ""), sizes_str(r),
          r.value("variant", "") + (r["params"].empty() ? "" : " " + query::params_text(r["params"])),
          t, samples, noise, gbs, gfl, pct, err, r.value("status", "")};
}

const std::vector<std::string> kHeader{"device",  "op",    "prec", "size",    "variant",   "median", "samples",
                                       "noise",   "GB/s",  "GFLOP/s", "%ceil", "err/bound", "status"};
// Indices into row() and kHeader.
enum Col : std::size_t { kMedian = 5, kSamples, kNoise, kGbs, kGflops, kCeil, kErr, kStatus };

}  // namespace

void print_progress(const nlohmann::json& r) {
  auto c = row(r);
  std::string msg = r.value("status", "") == "ok" ? "" : " " + r.value("message", "");
  auto cell = [&](std::size_t i) { return c[i].empty() ? std::string("-") : c[i]; };
  fmt::print(stderr, "[{}] {} {} {} {} {}: {} {} GB/s {} GFLOP/s err/bound {} {}{}\n", r.value("point", 0), c[0], c[1],
             c[2], c[3], c[4], cell(kMedian), cell(kGbs), cell(kGflops), cell(kErr), c[kStatus], msg);
}

std::string format_report(const std::vector<nlohmann::json>& all, const std::string& format, bool best_only,
                          const nlohmann::json& context) {
  // The best-only view: one row per device, op, precision and problem (query.hpp).
  auto recs = best_only ? query::best_or_failure_per_group(all, query::Metric{}, query::group_by({"device", "op", "precision", "sizes"}))
                        : all;
  std::string out;
  if (format == "json") {
    nlohmann::json doc = nlohmann::json::object();
    if (!context.is_null()) doc["context"] = context;
    doc["points"] = recs;
    return doc.dump(2) + "\n";
  }
  if (format == "jsonl") {
    for (const auto& r : recs) out += r.dump() + "\n";
    return out;
  }
  if (format == "csv") {
    std::string h;
    for (const auto& c : ExperimentWriter::csv_columns()) h += (h.empty() ? "" : ",") + c;
    out = h + "\n";
    for (const auto& r : recs) out += ExperimentWriter::csv_row(r) + "\n";
    return out;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : recs) rows.push_back(row(r));
  // A latency op's headline (pchase): a column only where a record has it, so that the
  // tables of every other op stay as they were.
  auto header = kHeader;
  if (std::any_of(recs.begin(), recs.end(), [](const auto& r) { return num(r, "ns_per_load") >= 0; })) {
    header.push_back("ns/load");
    for (std::size_t i = 0; i < rows.size(); ++i)
      rows[i].push_back(num(recs[i], "ns_per_load") >= 0 ? fmt::format("{:.2f}", num(recs[i], "ns_per_load")) : "");
  }
  rows.insert(rows.begin(), header);
  if (format == "md") return markdown_table(rows);
  // The measured columns (median to err/bound, and ns/load) right-aligned.
  std::vector<bool> right(header.size());
  for (std::size_t i = 0; i < right.size(); ++i) right[i] = (i >= kMedian && i <= kErr) || i > kStatus;
  return aligned_table(rows, right);
}

void print_report(const std::vector<nlohmann::json>& all, const std::string& format, bool best_only,
                  const nlohmann::json& context) {
  if (format == "none") return;  // the caller prints its own view (replay)
  fmt::print("{}", format_report(all, format, best_only, context));
}

nlohmann::json report_context(const nlohmann::json& x, const std::string& dir) {
  nlohmann::json c = {{"experiment", dir}};
  for (const char* k : {"name", "hetbench_version", "git_commit", "command_line", "seed", "host", "compiler",
                        "start_time", "end_time", "status", "tuning_db", "runs"})
    if (x.contains(k)) c[k] = x[k];
  c["devices"] = nlohmann::json::array();
  for (const auto& d : x.value("devices", nlohmann::json::array())) {
    nlohmann::json brief = nlohmann::json::object();
    for (const char* k : {"id", "name", "vendor", "driver", "version", "type", "backend", "compute_units", "max_clock_mhz",
                          "global_mem"})
      if (d.contains(k)) brief[k] = d[k];
    c["devices"].push_back(brief);
  }
  return c;
}

void check_report_files(const std::map<std::string, std::string>& files) {
  for (const auto& [format, path] : files) {
    const auto parent = std::filesystem::absolute(path).parent_path();
    if (!std::filesystem::is_directory(parent))
      throw Error(fmt::format("--{} '{}': the folder '{}' does not exist", format, path, parent.string()));
    if (std::filesystem::is_directory(path)) throw Error(fmt::format("--{} '{}': is a folder, not a file", format, path));
  }
}

void write_report_files(const std::map<std::string, std::string>& files, const std::vector<nlohmann::json>& records,
                        bool best_only, const nlohmann::json& context) {
  for (const auto& [format, path] : files) {
    // JSON: every point, whatever the table shows (one document with the context).
    const std::string text = format_report(records, format, best_only && format != "json", context);
    // Written beside, then renamed: a reader never sees half a file.
    const std::string tmp = path + ".tmp";
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      if (!(f << text) || !f.flush()) throw Error(fmt::format("--{} '{}': cannot write it", format, path));
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw Error(fmt::format("--{} '{}': cannot write it: {}", format, path, ec.message()));
  }
}

}  // namespace hetbench
