// The store over either backend: where it is, its schema and version, adding
// experiments once (by content hash), queries, and experiments written back as folders.
#include "store/store.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "engine/record/results.hpp"
#include "hetbench/error.hpp"
#include "store/backend.hpp"
#include "util/json_file.hpp"
#include "util/retry_busy.hpp"

namespace hetbench::store {

namespace fs = std::filesystem;

std::string default_store_url() {
  if (const char* s = std::getenv("HETBENCH_STORE"); s && *s) return s;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return (fs::path(x) / "hetbench" / "results.db").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".local" / "share" / "hetbench" / "results.db").string();
}

std::string resolve_store_url(const std::string& option) { return option.empty() ? default_store_url() : option; }

bool is_postgres_url(const std::string& url) {
  return url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
}

std::string redact_url(const std::string& url) {
  if (!is_postgres_url(url)) return url;
  const auto start = url.find("://") + 3, at = url.find('@', start), slash = url.find('/', start);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return url;
  const auto colon = url.find(':', start);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

std::int64_t Cells::integer(int c) const {
  const auto t = text(c);
  std::int64_t v = 0;
  std::from_chars(t.data(), t.data() + t.size(), v);
  return v;
}

std::optional<double> Cells::real(int c) const {
  if (null(c)) return std::nullopt;
  return std::strtod(std::string(text(c)).c_str(), nullptr);
}

// points_by_device_name covers what a query returns: one device's points of an op are
// one range of the index, in the order the query gives them, and the large records are
// never read (a query of 62,000 points among 1,000,000 read the whole table without it).
// The kernel files experiments ran from outside the build, once each by content. A table
// a store of the same schema version may lack (made before it existed): added on opening.
constexpr const char* kKernelFilesTable =
    "CREATE TABLE IF NOT EXISTS kernel_files (sha256 TEXT PRIMARY KEY, content TEXT NOT NULL);";

std::string schema_sql(const std::string& id, const std::string& real) {
  return fmt::format(R"(
CREATE TABLE hetbench_store (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE experiments (
  id {0}, hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL, folder TEXT NOT NULL,
  host TEXT NOT NULL, os TEXT NOT NULL, compiler TEXT NOT NULL, hetbench_version TEXT NOT NULL,
  git_commit TEXT NOT NULL, start_time TEXT NOT NULL, status TEXT NOT NULL, points BIGINT NOT NULL,
  added TEXT NOT NULL, system TEXT NOT NULL, experiment TEXT NOT NULL);
CREATE TABLE points (
  experiment_id BIGINT NOT NULL REFERENCES experiments (id), point BIGINT NOT NULL,
  op TEXT NOT NULL, variant TEXT NOT NULL, variant_id TEXT NOT NULL, backend TEXT NOT NULL,
  device TEXT NOT NULL, device_name TEXT NOT NULL, precision TEXT NOT NULL, sizes TEXT NOT NULL,
  params TEXT NOT NULL, status TEXT NOT NULL, time TEXT NOT NULL,
  median_s {1}, gflops {1}, gbs {1}, record TEXT NOT NULL);
CREATE INDEX points_by_experiment ON points (experiment_id, point);
CREATE INDEX points_by_device_name ON points (device_name, op, experiment_id, point, variant, variant_id, backend,
  device, precision, sizes, params, status, time, median_s, gflops, gbs);
{4}
INSERT INTO hetbench_store (key, value) VALUES ('application', '{2}'), ('schema_version', '{3}');
)",
                     id, real, kApplication, kSchemaVersion, kKernelFilesTable);
}

Store::Store(const std::string& url) : url_(url) {
  db_ = is_postgres_url(url) ? open_postgres(url) : open_sqlite(url);
  // Its transaction rolls back by itself: nothing to undo between tries.
  retry_while_busy<BackendBusy>(std::chrono::seconds(60), [&] { open_schema(); }, [] {});
}

Store::~Store() = default;

void Store::open_schema() {
  auto check = [&](const std::vector<std::string>& tables) {
    bool ours = false;
    for (const auto& t : tables) ours |= t == "hetbench_store";
    if (!ours)
      throw Error(fmt::format("{} is not a hetbench results store: it holds other tables ({}{}); it was left as it is",
                              db_->name(), tables.front(), tables.size() > 1 ? ", ..." : ""));
    std::string app, version;
    db_->query("SELECT key, value FROM hetbench_store", {}, [&](const Cells& c) {
      if (c.text(0) == "application") app = c.str(1);
      if (c.text(0) == "schema_version") version = c.str(1);
    });
    if (app != kApplication)
      throw Error(fmt::format("{} is not a hetbench results store (application '{}')", db_->name(), app));
    if (version != std::to_string(kSchemaVersion))
      throw Error(fmt::format("{} has schema version {}, this hetbench reads version {}{}", db_->name(), version,
                              kSchemaVersion,
                              std::atoi(version.c_str()) > kSchemaVersion ? ": update hetbench" : ""));
  };
  auto tables = db_->tables();
  if (!tables.empty()) {
    check(tables);
    if (std::find(tables.begin(), tables.end(), "kernel_files") == tables.end()) {
      Transaction t(*db_);
      db_->lock_schema();
      db_->exec(kKernelFilesTable);
      t.commit();
    }
  } else {
    Transaction t(*db_);
    db_->lock_schema();
    tables = db_->tables();  // another process may have made it meanwhile
    if (tables.empty()) db_->exec(db_->schema());
    else check(tables);
    t.commit();
  }
  db_->ready();
}

std::int64_t Store::insert(const ExperimentContent& e, bool& added) {
  std::optional<std::int64_t> id;
  db_->query("SELECT id FROM experiments WHERE hash = $1", {e.hash}, [&](const Cells& c) { id = c.integer(0); });
  added = !id;
  if (id) return *id;
  const auto& s = e.system;
  const auto& x = e.experiment;
  const std::string folder = fs::path(x.value("directory", "")).filename().string();
  db_->query(
      "INSERT INTO experiments (hash, name, folder, host, os, compiler, hetbench_version, git_commit, start_time, "
      "status, points, added, system, experiment) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14) RETURNING id",
      {e.hash, x.value("name", ""), folder.empty() ? x.value("name", "experiment") : folder, s.value("host", ""),
       s.value("os", ""), s.value("compiler", ""), s.value("hetbench_version", ""), s.value("git_commit", ""),
       x.value("start_time", ""), x.value("status", ""), std::to_string(e.points.size()), now_iso8601(), s.dump(),
       x.dump()},
      [&](const Cells& c) { id = c.integer(0); });
  db_->insert_points(*id, e.points);
  for (const auto& [name, content] : e.files) {
    if (content.find('\0') != std::string::npos)
      throw Error(fmt::format("kernel file '{}' of experiment {} holds a NUL byte: the store keeps text files only", name,
                              e.hash.substr(0, 12)));
    db_->query("INSERT INTO kernel_files (sha256, content) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING",
               {e.experiment.at("kernels").at("files").at(name).at("sha256").get<std::string>(), content}, [](const Cells&) {});
  }
  return *id;
}

std::vector<std::int64_t> Store::add(const std::vector<ExperimentContent>& experiments, ImportCount* count) {
  std::size_t next = 0;
  return add_each(experiments.size(), [&]() -> const ExperimentContent& { return experiments[next++]; }, count);
}

std::vector<std::int64_t> Store::add_folders(const std::vector<fs::path>& dirs, ImportCount* count) {
  std::size_t next = 0;
  ExperimentContent e;
  return add_each(dirs.size(), [&]() -> const ExperimentContent& { return e = read_experiment_folder(dirs[next++]); },
                  count);
}

std::vector<std::int64_t> Store::add_each(std::size_t n_experiments,
                                          const std::function<const ExperimentContent&()>& next, ImportCount* count) {
  std::vector<std::int64_t> ids;
  ImportCount n;
  Transaction t(*db_);
  for (std::size_t k = 0; k < n_experiments; ++k) {
    const auto& e = next();
    bool added = false;
    ids.push_back(insert(e, added));
    n.experiments += added;
    n.duplicates += !added;
    if (added) n.points += static_cast<std::int64_t>(e.points.size());
  }
  t.commit();
  if (count) *count = n;
  return ids;
}

std::vector<ExperimentSummary> Store::experiments(const std::vector<std::int64_t>& ids) {
  std::vector<ExperimentSummary> out;
  auto each = [&](const Cells& c) {
    out.push_back({c.integer(0), c.str(1), c.str(2), c.str(3), c.str(4), c.str(5), c.integer(6)});
  };
  const std::string sql = "SELECT id, hash, name, host, start_time, added, points FROM experiments";
  if (ids.empty()) db_->query(sql + " ORDER BY id", {}, each);
  for (auto id : ids) {
    const auto before = out.size();
    db_->query(sql + " WHERE id = $1", {std::to_string(id)}, each);
    if (out.size() == before) throw Error(fmt::format("{}: no experiment {}", db_->name(), id));
  }
  return out;
}

std::int64_t Store::resolve(const std::string& ref) {
  std::vector<std::int64_t> ids;
  auto each = [&](const Cells& c) { ids.push_back(c.integer(0)); };
  const bool digits = !ref.empty() && ref.find_first_not_of("0123456789") == std::string::npos;
  const bool hex = ref.size() >= 8 && ref.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (digits && ref.size() < 8) db_->query("SELECT id FROM experiments WHERE id = $1", {ref}, each);
  else if (hex) db_->query("SELECT id FROM experiments WHERE hash LIKE $1", {ref + "%"}, each);
  else throw Error(fmt::format("'{}': expected an experiment id or at least 8 hex digits of its hash", ref));
  if (ids.empty()) throw Error(fmt::format("{}: no experiment '{}'", db_->name(), ref));
  if (ids.size() > 1) throw Error(fmt::format("{}: '{}' names {} experiments; give more of the hash", db_->name(), ref, ids.size()));
  return ids.front();
}

void Store::read(std::int64_t id, nlohmann::json& experiment,
                 const std::function<void(const std::string&, const nlohmann::json&)>& each) {
  bool found = false;
  db_->query("SELECT experiment FROM experiments WHERE id = $1", {std::to_string(id)}, [&](const Cells& c) {
    experiment = parse_json_text(c.str(0), fmt::format("{}: experiment {}", db_->name(), id));
    found = true;
  });
  if (!found) throw Error(fmt::format("{}: no experiment {}", db_->name(), id));
  if (!experiment.is_object()) throw Error(fmt::format("{}: experiment {} is not a JSON object", db_->name(), id));
  // Every row is read as a record before anything is made of it: a damaged row (invalid
  // JSON, 1e999, not an object) stops the reader with its place, not a writer half-way.
  db_->query("SELECT point, record FROM points WHERE experiment_id = $1 ORDER BY point", {std::to_string(id)},
             [&](const Cells& c) {
               const auto where = fmt::format("{}: experiment {} point {}", db_->name(), id, c.integer(0));
               const std::string text = c.str(1);
               const auto r = parse_json_text(text, where);
               if (!r.is_object() || !r.contains("point"))
                 throw Error(fmt::format("{}: not a hetbench record", where));
               each(text, r);
             });
}

std::map<std::string, std::string> Store::kernel_files(const nlohmann::json& experiment) {
  std::map<std::string, std::string> out;
  if (!experiment.contains("kernels") || !experiment["kernels"].is_object()) return out;
  const auto files = experiment["kernels"].value("files", nlohmann::json::object());
  for (const auto& item : files.items()) {
    const std::string name = item.key();
    const auto& f = item.value();
    const std::string sha = f.is_object() ? f.value("sha256", "") : "";
    bool found = false;
    db_->query("SELECT content FROM kernel_files WHERE sha256 = $1", {sha}, [&](const Cells& c) {
      out[name] = c.str(0);
      found = true;
    });
    if (!found) throw Error(fmt::format("{}: kernel file '{}' (SHA-256 {}) is not in the store", db_->name(), name, sha));
  }
  return out;
}

fs::path Store::write_folder(std::int64_t id, const fs::path& dir) {
  std::string folder;
  db_->query("SELECT folder FROM experiments WHERE id = $1", {std::to_string(id)},
             [&](const Cells& c) { folder = c.str(0); });
  if (folder.empty() || folder == "." || folder == ".." || folder.find('/') != std::string::npos)
    folder = fmt::format("experiment-{}", id);
  const auto final_dir = dir / folder;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (fs::exists(final_dir)) throw Error(fmt::format("'{}' exists already; it was left as it is", final_dir.string()));
  // Written under a temporary name and renamed when whole: a damaged row met half-way
  // leaves no folder that looks like an experiment.
  const auto out = dir / fmt::format(".{}.tmp-{}", folder, ::getpid());
  fs::remove_all(out, ec);
  if (!fs::create_directory(out, ec))
    throw Error(fmt::format("cannot create '{}': {}", out.string(), ec ? ec.message() : "exists"));
  struct Cleanup {
    fs::path dir;
    bool keep = false;
    ~Cleanup() {
      std::error_code e;
      if (!keep) fs::remove_all(dir, e);
    }
  } cleanup{out};
  // The files as ExperimentWriter writes them, so a folder written back hashes the same.
  std::ofstream jsonl(out / "results.jsonl", std::ios::binary), csv(out / "results.csv", std::ios::binary);
  std::string header;
  for (const auto& c : ExperimentWriter::csv_columns()) header += (header.empty() ? "" : ",") + c;
  csv << header << '\n';
  nlohmann::json experiment;
  read(id, experiment, [&](const std::string& text, const nlohmann::json& r) {
    jsonl << text << '\n';
    csv << ExperimentWriter::csv_row(r) << '\n';
  });
  std::ofstream x(out / "experiment.json", std::ios::binary);
  x << experiment.dump(2) << '\n';
  if (!jsonl.flush() || !csv.flush() || !x.flush()) throw Error(fmt::format("cannot write '{}'", out.string()));
  const auto files = kernel_files(experiment);
  if (!files.empty()) fs::create_directory(out / "kernels", ec);
  for (const auto& [name, content] : files) {
    std::ofstream k(out / name, std::ios::binary);
    if (!(k << content) || !k.flush()) throw Error(fmt::format("cannot write '{}'", (out / name).string()));
  }
  fs::rename(out, final_dir, ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", final_dir.string(), ec.message()));
  cleanup.keep = true;
  return final_dir;
}

bool is_store_ref(const std::string& arg) { return arg.rfind("store:", 0) == 0; }

fs::path experiment_folder(const std::string& arg, const std::string& store_option, const fs::path& scratch) {
  if (!is_store_ref(arg)) return arg;
  Store s(resolve_store_url(store_option));
  const auto id = s.resolve(arg.substr(6));
  return s.write_folder(id, scratch / fmt::format("store-{}", id));
}

}  // namespace hetbench::store
