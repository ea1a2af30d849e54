// hetbench store add|query|list|export|import|get: the results store (docs/store.md).
#include <charconv>
#include <cstdio>
#include <cstring>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "engine/record/query.hpp"
#include "hetbench/error.hpp"
#include "store/store.hpp"
#include "util/text_table.hpp"

namespace hetbench::cli {

namespace {

using store::Store;

std::string num(const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : ""; }

// The stored "k=v;k=v" text (values as JSON) back as an object.
nlohmann::json stored_pairs(std::string_view text) {
  nlohmann::json j = nlohmann::json::object();
  while (!text.empty()) {
    const auto semi = text.find(';');
    const auto pair = text.substr(0, semi);
    text = semi == std::string_view::npos ? std::string_view() : text.substr(semi + 1);
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string value(pair.substr(eq + 1));
    j[std::string(pair.substr(0, eq))] =
        nlohmann::json::accept(value) ? nlohmann::json::parse(value) : nlohmann::json(value);
  }
  return j;
}

// Output in blocks: a query may print a million rows.
class Out {
 public:
  ~Out() { flush(); }
  template <class... A>
  void print(fmt::format_string<A...> f, A&&... a) {
    fmt::format_to(std::back_inserter(buf_), f, std::forward<A>(a)...);
    if (buf_.size() > (1 << 20)) flush();
  }
  // The CSV row of one point, written straight into the buffer through a pointer: a
  // query may return a million rows, and a formatted string per field, then fmt's
  // appends and float formatting, cost most of its time.
  void csv_row(const store::QueryRow& p) {
    const std::string_view text[] = {p.host,   p.op,     p.variant, p.variant_id, p.backend, p.device,
                                     p.device_name, p.precision, p.sizes,   p.params,     p.status,  p.time};
    std::size_t most = 3 * 24 + 2 * 21 + 17 + 2;  // numbers and commas: ample
    for (const auto f : text) most += 2 * f.size() + 3;
    const std::size_t at = buf_.size();
    buf_.resize(at + most);
    char* o = buf_.data() + at;
    char* const end = buf_.data() + buf_.size();
    auto field = [&](std::string_view f) {  // quoted only where it must be
      bool plain = true;
      for (const char c : f) plain &= c != ',' && c != '"' && c != '\n';
      if (plain) {
        std::memcpy(o, f.data(), f.size());
        o += f.size();
      } else {
        *o++ = '"';
        for (const char c : f) {
          if (c == '"') *o++ = '"';
          *o++ = c;
        }
        *o++ = '"';
      }
      *o++ = ',';
    };
    // Numbers in their shortest form that reads back as the same double (fmt's Dragonbox,
    // a fifth of std::to_chars' instructions here): CSV is for programs, which get the
    // stored value exactly.
    auto integer = [&](std::int64_t v) { o = std::to_chars(o, end, v).ptr; };
    auto real = [&](const std::optional<double>& v) {
      if (v) o = fmt::format_to(o, FMT_COMPILE("{}"), *v);
    };
    integer(p.experiment);
    *o++ = ',';
    field(text[0]);
    integer(p.point);
    *o++ = ',';
    for (std::size_t i = 1; i < std::size(text); ++i) field(text[i]);
    real(p.median_s);
    *o++ = ',';
    real(p.gflops);
    *o++ = ',';
    real(p.gbs);
    *o++ = '\n';
    buf_.resize(static_cast<std::size_t>(o - buf_.data()));
    if (buf_.size() > (1 << 20)) flush();
  }
  void flush() {
    std::fwrite(buf_.data(), 1, buf_.size(), stdout);
    buf_.clear();
  }

 private:
  fmt::memory_buffer buf_;
};

int query(Store& s, const store::Filter& f, const std::string& format) {
  if (format != "table" && format != "csv" && format != "json")
    throw Error(fmt::format("--format '{}': expected table, csv or json", format));
  Out out;
  std::int64_t n = 0;
  const bool table = format == "table", csv = format == "csv";
  // The table's header goes out with its first row: a filter refused (bad --size) prints
  // nothing but its error. Whole device names, and the parameters (WG=64 and WG=256 are
  // two rows that differ only there).
  bool header = false;
  if (csv)
    out.print("experiment,host,point,op,variant,variant_id,backend,device,device_name,precision,sizes,params,status,"
              "time,median_s,gflops,gbs\n");
  if (format == "json") out.print("[");
  s.query(f, [&](const store::QueryRow& p) {
    if (table) {
      if (!header)
        out.print("{:>4} {:<14} {:>6} {:<6} {:<22} {:<34} {:<4} {:<26} {:<24} {:<7} {:>11} {:>10} {:>10}\n", "exp",
                  "host", "point", "op", "variant", "device", "prec", "sizes", "params", "status", "median_s", "gflops",
                  "gbs");
      header = true;
      out.print("{:>4} {:<14} {:>6} {:<6} {:<22} {:<34} {:<4} {:<26} {:<24} {:<7} {:>11} {:>10} {:>10}\n", p.experiment,
                p.host.substr(0, 14), p.point, p.op, p.variant.substr(0, 22), p.device_name, p.precision,
                query::sizes_text(std::string(p.op), std::string(p.precision), stored_pairs(p.sizes)),
                p.params.empty() ? "-" : query::params_text(stored_pairs(p.params)), p.status, num(p.median_s),
                num(p.gflops), num(p.gbs));
    } else if (csv) {
      out.csv_row(p);
    } else {
      auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
      const nlohmann::json j = {{"experiment", p.experiment}, {"host", p.host},       {"point", p.point},
                                {"op", p.op},                 {"variant", p.variant}, {"variant_id", p.variant_id},
                                {"backend", p.backend},       {"device", p.device},   {"device_name", p.device_name},
                                {"precision", p.precision},   {"sizes", p.sizes},     {"params", p.params},
                                {"status", p.status},         {"time", p.time},       {"median_s", opt(p.median_s)},
                                {"gflops", opt(p.gflops)},    {"gbs", opt(p.gbs)}};
      out.print("{}\n  {}", n ? "," : "", j.dump());
    }
    ++n;
  });
  if (table && !header)
    out.print("{:>4} {:<14} {:>6} {:<6} {:<22} {:<34} {:<4} {:<26} {:<24} {:<7} {:>11} {:>10} {:>10}\n", "exp", "host",
              "point", "op", "variant", "device", "prec", "sizes", "params", "status", "median_s", "gflops", "gbs");
  if (format == "json") out.print("{}]\n", n ? "\n" : "");
  out.flush();
  fmt::print(stderr, "hetbench: {} points\n", n);
  return 0;
}

int list(Store& s) {
  // Whole names and hosts: a column is as wide as its widest cell (the hash stays short).
  std::vector<TextRow> rows{{"id", "hash", "name", "host", "start", "points"}};
  for (const auto& e : s.experiments())
    rows.push_back({std::to_string(e.id), e.hash.substr(0, 12), e.name, e.host, e.start_time, std::to_string(e.points)});
  fmt::print("{}", aligned_table(rows, {true, false, false, false, false, true}));
  return 0;
}

std::vector<std::int64_t> resolve_all(Store& s, const std::vector<std::string>& refs) {
  std::vector<std::int64_t> ids;
  for (const auto& r : refs) ids.push_back(s.resolve(r));
  return ids;
}

}  // namespace

Command add_store(CLI::App& app) {
  auto* sub = app.add_subcommand("store", "the results store: add, query, list, export, import, get (docs/store.md)");
  struct Opts {
    std::string store, format = "table", bundle, out;
    std::vector<std::string> paths, refs;
    std::vector<std::int64_t> experiments;
    store::Filter f;
  };
  auto o = std::make_shared<Opts>();
  sub->require_subcommand(1, 1);
  auto* a = sub->add_subcommand("add", "store experiment folders (one already stored adds nothing)");
  a->add_option("experiments", o->paths, "experiment folders")->required();
  auto* q = sub->add_subcommand("query", "points of the stored experiments, filtered");
  q->add_option("--op", o->f.op, "op (gemm, spmv, ...)");
  q->add_option("--device", o->f.device, "device name (as `hetbench devices` shows it) or id (host, cuda:N, opencl:P:D)");
  q->add_option("--variant", o->f.variant, "variant name or id (backend/op/name)");
  q->add_option("--precision", o->f.precision, "precision (S, D, DF, DD, ...)");
  q->add_option("--size", o->f.sizes, "AXIS=VALUE or AXIS=LO..HI (repeatable)");
  q->add_option("--since", o->f.since, "points measured at or after this date/time (ISO 8601)");
  q->add_option("--until", o->f.until, "points measured at or before this date/time (ISO 8601)");
  q->add_option("--host", o->f.host, "host name");
  q->add_option("--status", o->f.status, "ok, failed, error or skipped");
  q->add_option("--experiment", o->f.experiments, "stored experiment id (repeatable)");
  q->add_option("--format", o->format, "table, csv or json")->capture_default_str();
  auto* l = sub->add_subcommand("list", "one line per stored experiment");
  auto* x = sub->add_subcommand("export", "write experiments as a bundle (all, or those given)");
  x->add_option("--bundle", o->bundle, "bundle file to write (.gz: compressed)")->required();
  x->add_option("experiments", o->refs, "stored experiment ids or hash prefixes");
  auto* i = sub->add_subcommand("import", "merge bundles into the store, each in one transaction");
  i->add_option("bundles", o->paths, "bundle files")->required();
  auto* g = sub->add_subcommand("get", "write stored experiments back as experiment folders");
  g->add_option("experiments", o->refs, "stored experiment ids or hash prefixes")->required();
  g->add_option("-o,--out", o->out, "folder to write them under")->required();
  for (auto* c : {a, q, l, x, i, g})
    c->add_option("--store", o->store, "store: a file or postgresql://... (default: $HETBENCH_STORE or "
                                       "~/.local/share/hetbench/results.db)");
  return {sub, [o, a, q, l, x, i, g] {
            Store s(store::resolve_store_url(o->store));
            const auto where = store::redact_url(s.url());
            if (a->parsed()) {
              store::ImportCount n;
              const auto ids = s.add_folders({o->paths.begin(), o->paths.end()}, &n);
              for (std::size_t k = 0; k < ids.size(); ++k) fmt::print("{} {}\n", ids[k], o->paths[k]);
              fmt::print(stderr, "hetbench: added {} experiments ({} points) to {}; {} were stored already\n",
                         n.experiments, n.points, where, n.duplicates);
              return 0;
            }
            if (q->parsed()) return query(s, o->f, o->format);
            if (l->parsed()) return list(s);
            if (x->parsed()) {
              const auto ids = resolve_all(s, o->refs);
              const auto points = s.export_bundle(o->bundle, ids);
              fmt::print(stderr, "hetbench: exported {} points from {} to {}\n", points, where, o->bundle);
              return 0;
            }
            if (i->parsed()) {
              for (const auto& b : o->paths) {
                const auto n = s.import_bundle(b);
                fmt::print(stderr, "hetbench: imported {} experiments ({} points) from {} into {}; {} were stored already\n",
                           n.experiments, n.points, b, where, n.duplicates);
              }
              return 0;
            }
            if (g->parsed())
              for (auto id : resolve_all(s, o->refs)) fmt::print("{}\n", s.write_folder(id, o->out).string());
            return 0;
          }};
}

}  // namespace hetbench::cli
