// hetbench db list|show|export|import|prune: the tuning database by hand; db ship: a
// shipped tuning file made from a campaign spec (docs/tuning-db.md).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "tune/ship.hpp"
#include "tuning/db.hpp"
#include "tuning/shipped.hpp"
#include "util/json_file.hpp"
#include "util/random.hpp"
#include "util/text_table.hpp"

namespace hetbench::cli {

namespace {

using tuning::TuningDb;
using tuning::TuningEntry;

std::string db_path(const std::string& option) {
  auto p = tuning::resolve_db_path(option);
  if (p.empty()) throw Error("no tuning database: --db none (or HETBENCH_DB=none) turns it off");
  return p;
}

std::string params_text(const ParamValues& p) { return p.empty() ? "-" : format_params(p); }

// Whether an entry can be used now: "" (its variant is loaded and unchanged), "stale"
// (the variant's source or metadata changed since) or "not loaded".
std::string entry_state(const TuningEntry& e, const std::map<std::string, std::string>& current) {
  auto it = current.find(e.variant_id);
  if (it == current.end()) return "not loaded";
  return it->second == e.variant_hash ? "" : "stale";
}

std::map<std::string, std::string> current_hashes() {
  std::map<std::string, std::string> current;  // variant id -> its hash now
  for (const auto& v : all_variants()) current[v->id()] = tuning::variant_hash(*v);
  return current;
}

// The user's entries, then the shipped ones (docs/tuning-db.md): each with its layer,
// and marked where its variant changed since it was tuned (such an entry is never used).
int list(const std::string& path) {
  auto db = TuningDb::open_if_exists(path);
  const auto current = current_hashes();
  std::vector<TextRow> rows{{"id", "layer", "device", "variant", "prec", "storage", "class", "params", "rate", "strategy"}};
  // Adds a line; returns the entry's state.
  auto add = [&](const TuningEntry& e, const std::string& layer) {
    auto state = entry_state(e, current);
    rows.push_back({std::to_string(e.id), layer + (state.empty() ? "" : " (" + state + ")"), e.device.name,
                    e.variant_id, std::string(name(e.precision)), e.storage.empty() ? "-" : e.storage,
                    e.problem.label, params_text(e.params) + (e.layout ? " @" + describe(*e.layout) : ""),
                    fmt::format("{:.4g} {}", e.rate, e.unit), e.strategy.empty() ? "-" : e.strategy});
    return state;
  };
  const auto entries = db ? db->list() : std::vector<TuningEntry>{};
  for (const auto& e : entries) add(e, "user");
  const auto dir = tuning::shipped_dir();
  const auto shipped = dir.empty() ? std::vector<tuning::ShippedEntry>{} : tuning::read_shipped(dir);
  int stale = 0;
  for (const auto& s : shipped) stale += add(s.entry, "shipped " + s.file) == "stale";
  if (rows.size() > 1)
    fmt::print("{}", aligned_table(rows, {true, false, false, false, false, false, false, false, true, false}));
  if (db) fmt::print(stderr, "hetbench: {} entries in {}\n", entries.size(), path);
  else fmt::print(stderr, "hetbench: no tuning database at {} yet\n", path);
  if (!dir.empty())
    fmt::print(stderr, "hetbench: {} shipped entries in {}{}\n", shipped.size(), dir,
               stale ? fmt::format(" ({} stale: their kernels changed since the campaign; they are not used)", stale)
                     : "");
  return 0;
}

int show(const std::string& path, std::int64_t id) {
  auto db = TuningDb::open_if_exists(path);
  auto e = db ? db->get(id) : std::nullopt;
  if (!e) throw Error(fmt::format("tuning database {}: no entry {}", path, id));
  fmt::print("{}\n", to_json(*e).dump(2));
  return 0;
}

int export_json(const std::string& path, const std::string& out) {
  auto db = TuningDb::open_if_exists(path);
  nlohmann::json entries = nlohmann::json::array();
  if (db)
    for (const auto& e : db->list()) entries.push_back(to_json(e));
  const nlohmann::json j = {{"hetbench_tuning_db", 1}, {"entries", entries}};
  if (out.empty() || out == "-") {
    fmt::print("{}\n", j.dump(2));
  } else {
    std::ofstream f(out);
    if (!(f << j.dump(2) << '\n')) throw Error(fmt::format("cannot write '{}'", out));
  }
  fmt::print(stderr, "hetbench: exported {} entries from {}\n", entries.size(), path);
  return 0;
}

int import_json(const std::string& path, const std::string& file) {
  const auto j = read_json_file(file);
  if (!j.is_object() || !j.contains("entries") || !j["entries"].is_array())
    throw Error(fmt::format("{}: key 'entries': expected an array (a file written by `hetbench db export`)", file));
  // The format's version: a newer one may hold entries this hetbench would misread.
  if (!j.contains("hetbench_tuning_db") || !j["hetbench_tuning_db"].is_number_integer() || j["hetbench_tuning_db"] != 1)
    throw Error(fmt::format("{}: key 'hetbench_tuning_db' is {}, this hetbench reads format 1{}", file,
                            j.value("hetbench_tuning_db", nlohmann::json()).dump(),
                            j.contains("hetbench_tuning_db") ? ": update hetbench" : " (not a `hetbench db export` file?)"));
  // Every entry is checked before any is written, so a bad file changes nothing.
  std::vector<TuningEntry> entries;
  for (std::size_t i = 0; i < j["entries"].size(); ++i)
    entries.push_back(tuning::entry_from_json(j["entries"][i], fmt::format("{}: entries[{}]", file, i)));
  TuningDb db(path);
  int stored = 0;
  for (const auto& e : entries) stored += db.put(e).second;
  fmt::print(stderr, "hetbench: imported {} of {} entries into {} ({} kept an existing entry at least as fast)\n",
             stored, entries.size(), path, entries.size() - stored);
  return 0;
}

// "30" or "30d" days, "12h" hours.
std::chrono::seconds age(const std::string& s) {
  std::size_t used = 0;
  long long n = -1;
  try {
    n = std::stoll(s, &used);
  } catch (const std::exception&) {
  }
  const std::string unit = s.substr(used);
  if (n < 0 || (unit != "" && unit != "d" && unit != "h"))
    throw Error(fmt::format("--older-than '{}': expected days (30, 30d) or hours (12h)", s));
  return std::chrono::seconds(n * (unit == "h" ? 3600 : 86400));
}

int prune(const std::string& path, const std::string& device, const std::string& older) {
  if (!TuningDb::open_if_exists(path)) throw Error(fmt::format("tuning database {} does not exist", path));
  TuningDb db(path);
  const auto current = current_hashes();
  std::string cutoff;
  if (!older.empty())
    cutoff = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                         fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() - age(older))));
  std::vector<std::int64_t> ids;
  int unknown = 0;
  for (const auto& e : db.list()) {
    std::string why;
    if (device.empty() && older.empty()) {
      // Without selectors: entries no current variant can use. A variant not loaded now
      // (one from --kernels, or a library this build lacks) may still exist: kept.
      auto it = current.find(e.variant_id);
      if (it == current.end()) ++unknown;
      else if (it->second != e.variant_hash) why = "the variant's source or metadata changed since it was tuned";
    } else {
      const bool dev = device.empty() || e.device.name.find(device) != std::string::npos;
      const bool old = older.empty() || e.timestamp < cutoff;
      if (dev && old)
        why = fmt::format("{}{}", device.empty() ? "" : "device matches '" + device + "'",
                          older.empty() ? "" : fmt::format("{}older than {}", device.empty() ? "" : ", ", older));
    }
    if (why.empty()) continue;
    fmt::print("removed {}: {} on {} {} {} ({})\n", e.id, e.variant_id, e.device.name, name(e.precision),
               e.problem.label, why);
    ids.push_back(e.id);
  }
  const int n = db.remove(ids);
  fmt::print(stderr, "hetbench: removed {} entries from {}\n", n, path);
  if (unknown)
    fmt::print(stderr, "hetbench: kept {} entries of variants not loaded now (give their --kernels to check them)\n",
               unknown);
  return 0;
}

}  // namespace

Command add_db(CLI::App& app) {
  auto* sub = app.add_subcommand("db", "the tuning database: list, show, export, import, prune, ship");
  struct Opts {
    std::string db, out, file, device, older, spec, ship_out = "ship-tuning-results";
    std::int64_t id = 0;
    double deadline = 0;
    std::uint64_t seed = 0;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--db", o->db, "database file (default: $HETBENCH_DB or ~/.local/share/hetbench/tuning.db)");
  sub->require_subcommand(1, 1);
  auto* l = sub->add_subcommand("list", "one line per entry: the database's, then those shipped with hetbench (tuned/)");
  auto* s = sub->add_subcommand("show", "everything about one entry, as JSON");
  s->add_option("id", o->id, "entry id (see list)")->required();
  auto* x = sub->add_subcommand("export", "every entry as JSON");
  x->add_option("--out", o->out, "file to write (default: stdout)");
  auto* i = sub->add_subcommand("import", "merge entries from an exported file; for the same key the better rate wins");
  i->add_option("file", o->file, "JSON file written by `hetbench db export`")->required();
  auto* p = sub->add_subcommand("prune", "remove entries: stale ones (variant changed or gone), or those selected");
  p->add_option("--device", o->device, "entries of devices whose name contains this");
  p->add_option("--older-than", o->older, "entries older than this: 30, 30d or 12h");
  for (auto* c : {l, s, x, i, p}) c->add_option("--db", o->db, "database file");
  auto* sh = sub->add_subcommand(
      "ship", "run a tuning campaign spec (bench/tuned/) and write its shipped file: the entries that beat the op's own "
              "choice beyond the noise");
  sh->add_option("spec", o->spec, "campaign spec (bench/tuned/*.json)")->required()->check(CLI::ExistingFile);
  sh->add_option("--out", o->ship_out, "folder for the campaign's experiments and database")->capture_default_str();
  sh->add_option("--deadline", o->deadline, "seconds after which no further shape is started (0: none)")
      ->check(CLI::NonNegativeNumber);
  sh->add_option("--seed", o->seed, "seed of the strategies and the inputs (default: a fresh one)");
  return {sub, [o, l, s, x, i, p, sh] {
            if (sh->parsed()) {
              const auto c = tune::read_ship_campaign(o->spec);
              const auto seed = sh->count("--seed") ? o->seed : fresh_seed();
              const auto r = tune::ship_campaign(c, o->ship_out, o->deadline, seed);
              fmt::print("hetbench: db ship: {} shape(s) tuned, {} left out by the deadline; {} of {} entries shipped "
                         "to {}\n",
                         r.tuned, r.left_out, r.shipped, r.entries, c.output.string());
              return 0;
            }
            const auto path = db_path(o->db);
            if (l->parsed()) return list(path);
            if (s->parsed()) return show(path, o->id);
            if (x->parsed()) return export_json(path, o->out);
            if (i->parsed()) return import_json(path, o->file);
            if (p->parsed()) return prune(path, o->device, o->older);
            return 0;
          }};
}

}  // namespace hetbench::cli
