// `store query`: the filters as SQL both databases run (a device name and op hit the
// points_by_device_name index), sizes matched on the stored "k=v;k=v" text.
#include <charconv>
#include <cstdlib>
#include <regex>
#include <unordered_map>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/expr.hpp"
#include "store/backend.hpp"
#include "store/store.hpp"

namespace hetbench::store {

namespace {

// "n=1024" or "n=1000..4096" against "m=512;n=1024;k=64".
struct SizeTest {
  std::string axis;
  double lo = 0, hi = 0;
};

// Values as `run --size` takes them: integer expressions (1024, 1e5, 2^20).
SizeTest parse_size(const std::string& s) {
  const auto eq = s.find('=');
  const auto usage = [&](const std::string& why) {
    return Error(fmt::format("--size '{}': {}; expected AXIS=VALUE or AXIS=LO..HI (n=1024, n=1e5..2^20)", s, why));
  };
  static const std::regex axis(R"([A-Za-z_][A-Za-z0-9_]*)");
  if (eq == std::string::npos || !std::regex_match(s.substr(0, eq), axis)) throw usage("no axis name before '='");
  const auto rest = s.substr(eq + 1);
  const auto dots = rest.find("..");
  auto value = [&](const std::string& text) {
    if (text.empty()) throw usage("a value is missing");
    try {
      return static_cast<double>(eval_int(Expr(text), {}));
    } catch (const Error& e) {
      throw usage(fmt::format("'{}' is not an integer expression ({})", text, e.what()));
    }
  };
  SizeTest t{s.substr(0, eq), value(rest.substr(0, dots)), 0};
  t.hi = dots == std::string::npos ? t.lo : value(rest.substr(dots + 2));
  return t;
}

bool sizes_hold(std::string_view sizes, const std::vector<SizeTest>& tests) {
  for (const auto& t : tests) {
    const auto key = t.axis + "=";
    std::size_t at = 0;
    bool ok = false;
    while ((at = sizes.find(key, at)) != std::string::npos) {
      if (at == 0 || sizes[at - 1] == ';') {
        double v = 0;
        const auto [end, ec] = std::from_chars(sizes.data() + at + key.size(), sizes.data() + sizes.size(), v);
        ok = ec == std::errc() && v >= t.lo && v <= t.hi;
        break;
      }
      at += key.size();
    }
    if (!ok) return false;
  }
  return true;
}

void check_date(const std::string& option, const std::string& v) {
  if (v.empty()) return;
  static const std::regex re(R"(\d{4}-\d{2}-\d{2}([T ]\d{2}(:\d{2}(:\d{2})?)?Z?)?)");
  if (!std::regex_match(v, re))
    throw Error(fmt::format("{} '{}': expected a date or time, ISO 8601 (2026-12-01, 2026-12-01T09:30)", option, v));
}

// host, cuda:N or opencl:P:D. Not a std::regex: compiling one costs a query of
// thousands of rows more than reading them.
bool is_device_id(const std::string& s) {
  auto digits = [&](std::size_t& i) {
    const auto b = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > b;
  };
  if (s == "host") return true;
  std::size_t i = 0;
  if (s.rfind("cuda:", 0) == 0) return (i = 5, digits(i) && i == s.size());
  if (s.rfind("opencl:", 0) != 0) return false;
  i = 7;
  if (!digits(i) || i == s.size() || s[i] != ':') return false;
  ++i;
  return digits(i) && i == s.size();
}

}  // namespace

void Store::query(const Filter& f, const std::function<void(const QueryRow&)>& row) {
  std::vector<SizeTest> sizes;
  for (const auto& s : f.sizes) sizes.push_back(parse_size(s));
  check_date("--since", f.since);
  check_date("--until", f.until);
  std::string where;
  Params params;
  auto param = [&](const std::string& v) {
    params.push_back(v);
    return fmt::format("CAST(${} AS TEXT)", params.size());
  };
  auto cond = [&](const std::string& c) { where += (where.empty() ? " WHERE " : " AND ") + c; };
  if (!f.experiments.empty()) {
    std::string in;
    for (auto id : f.experiments) in += (in.empty() ? "" : ",") + std::to_string(id);
    cond("p.experiment_id IN (" + in + ")");
  }
  if (!f.op.empty()) cond("p.op = " + param(f.op));
  // A device id (host, cuda:0, opencl:0:1) names a device on one machine; a name is the
  // same on every machine, and only names are indexed (ids are for one-machine stores).
  if (!f.device.empty()) cond((is_device_id(f.device) ? "p.device = " : "p.device_name = ") + param(f.device));
  if (!f.variant.empty()) {
    const auto v = param(f.variant);
    cond(fmt::format("(p.variant = {0} OR p.variant_id = {0})", v));
  }
  if (!f.precision.empty()) cond("p.precision = " + param(f.precision));
  // Through the experiments' ids, not a join: each point row would otherwise seek the
  // experiments table for its host (a tenth of a query's time).
  if (!f.host.empty()) cond("p.experiment_id IN (SELECT id FROM experiments WHERE host = " + param(f.host) + ")");
  if (!f.status.empty()) cond("p.status = " + param(f.status));
  if (!f.since.empty()) cond("p.time >= " + param(f.since));
  if (!f.until.empty()) {  // inclusive: --until 2026-12-01 keeps that whole day
    const auto u = param(f.until);
    cond(fmt::format("substr(p.time, 1, length({0})) <= {0}", u));
  }
  // The hosts of all experiments first (one row each): the points' rows then carry only
  // the experiment id.
  std::unordered_map<std::int64_t, std::string> hosts;
  db_->query("SELECT id, host FROM experiments", {}, [&](const Cells& c) { hosts[c.integer(0)] = c.str(1); });
  const std::string sql =
      "SELECT p.experiment_id, p.point, p.op, p.variant, p.variant_id, p.backend, p.device, p.device_name, "
      "p.precision, p.sizes, p.params, p.status, p.time, p.median_s, p.gflops, p.gbs FROM points p" +
      where + " ORDER BY p.experiment_id, p.point";
  QueryRow r;
  std::int64_t host_of = -1;
  db_->query(sql, params, [&](const Cells& c) {
    r.sizes = c.text(9);
    if (!sizes.empty() && !sizes_hold(r.sizes, sizes)) return;
    r.experiment = c.integer(0);
    if (r.experiment != host_of) {  // rows come by experiment: one lookup per experiment
      const auto h = hosts.find(r.experiment);
      r.host = h == hosts.end() ? std::string_view() : std::string_view(h->second);
      host_of = r.experiment;
    }
    r.point = static_cast<int>(c.integer(1));
    r.op = c.text(2);
    r.variant = c.text(3);
    r.variant_id = c.text(4);
    r.backend = c.text(5);
    r.device = c.text(6);
    r.device_name = c.text(7);
    r.precision = c.text(8);
    r.params = c.text(10);
    r.status = c.text(11);
    r.time = c.text(12);
    r.median_s = c.real(13);
    r.gflops = c.real(14);
    r.gbs = c.real(15);
    row(r);
  });
}

}  // namespace hetbench::store
