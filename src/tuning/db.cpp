// The SQLite side of the tuning database: opening (and refusing foreign or corrupt
// files), the schema, and transactions. Concurrency: WAL journal, a busy timeout, and
// every write in BEGIN IMMEDIATE, so two processes tuning at once queue instead of
// failing or losing entries (docs/tuning-db.md).
#include <sqlite3.h>
#include <cctype>
#include <cerrno>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "tuning/db.hpp"
#include "util/retry_busy.hpp"

namespace hetbench::tuning {

namespace fs = std::filesystem;

namespace {

constexpr int kApplicationId = 0x48425444;  // "HBTD"
// 2 adds the column layout; a file of schema 1 is upgraded when opened for writing, and
// read as having no layouts when opened for reading.
constexpr int kSchemaVersion = 2;
constexpr int kBusyMs = 60000;

const char* kSchema = R"(
CREATE TABLE entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: records cite entries by id
  backend TEXT NOT NULL, dev_name TEXT NOT NULL, dev_vendor TEXT NOT NULL, dev_driver TEXT NOT NULL,
  dev_version TEXT NOT NULL, dev_arch TEXT NOT NULL,
  variant TEXT NOT NULL, variant_hash TEXT NOT NULL, precision TEXT NOT NULL, storage TEXT NOT NULL,
  op TEXT NOT NULL, class TEXT NOT NULL, features TEXT NOT NULL,
  params TEXT NOT NULL, rate REAL NOT NULL, rate_lo REAL NOT NULL, rate_hi REAL NOT NULL, unit TEXT NOT NULL,
  experiment TEXT NOT NULL, point INTEGER NOT NULL, strategy TEXT NOT NULL, evaluations INTEGER NOT NULL,
  timestamp TEXT NOT NULL, layout TEXT NOT NULL DEFAULT '',
  UNIQUE (backend, dev_name, dev_vendor, dev_driver, dev_version, variant, variant_hash, precision, storage, op, class));
CREATE INDEX entries_by_variant ON entries (variant, precision, storage);
)";

const char* kColumns =
    "id, backend, dev_name, dev_vendor, dev_driver, dev_version, dev_arch, variant, variant_hash, precision, storage, "
    "op, class, features, params, rate, rate_lo, rate_hi, unit, experiment, point, strategy, evaluations, timestamp, ";
// Schema 1 has no layout column: such a file opened for reading selects '' instead.
const char* kLayoutColumn[] = {"''", "layout"};

// SQLite answered SQLITE_BUSY or SQLITE_LOCKED: another process holds the lock this one
// needs (the opening retries on it).
class DbBusy : public Error {
 public:
  using Error::Error;
};

[[noreturn]] void db_fail(sqlite3* db, int rc, const fs::path& path, const std::string& what) {
  const auto m = fmt::format("tuning database {}: {}{}", path.string(), what.empty() ? "" : what + ": ", sqlite3_errmsg(db));
  if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) throw DbBusy(m);
  throw Error(m);
}

// One prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql, const fs::path& path) : db_(db), path_(path) {
    if (const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr); rc != SQLITE_OK)
      db_fail(db, rc, path, "preparing a statement");
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  Stmt& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  bool step() {  // true while there is a row
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) db_fail(db_, rc, path_, "reading or writing");
    return false;
  }
  std::string text(int c) const {
    const auto* t = sqlite3_column_text(s_, c);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  double real(int c) const { return sqlite3_column_double(s_, c); }
  std::int64_t integer(int c) const { return sqlite3_column_int64(s_, c); }
 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
  fs::path path_;
};

void exec(sqlite3* db, const char* sql, const fs::path& path) {
  char* msg = nullptr;
  if (const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &msg); rc != SQLITE_OK) {
    sqlite3_free(msg);  // sqlite3_errmsg says the same
    db_fail(db, rc, path, "");
  }
}

std::int64_t pragma(sqlite3* db, const char* name, const fs::path& path) {
  Stmt s(db, fmt::format("PRAGMA {}", name), path);
  return s.step() ? s.integer(0) : 0;
}

// A transaction that rolls back unless committed (an exception on the way out).
class Transaction {
 public:
  Transaction(sqlite3* db, const fs::path& path) : db_(db), path_(path) { exec(db, "BEGIN IMMEDIATE", path); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, "COMMIT", path_);
    done_ = true;
  }

 private:
  sqlite3* db_;
  fs::path path_;
  bool done_ = false;
};

// SQLite's own file header: anything else is refused before SQLite may touch it.
void check_header(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  char head[16] = {0};
  f.read(head, sizeof head);
  if (f.gcount() == 0) return;  // an empty file is an empty database
  if (f.gcount() < 16 || std::memcmp(head, "SQLite format 3", 16) != 0)
    throw Error(fmt::format("{} is not a hetbench tuning database (not an SQLite file); it was left as it is",
                            path.string()));
}

std::string now_utc() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(
                                                   std::chrono::system_clock::now())));
}

TuningEntry row_entry(const Stmt& s, const fs::path& path) {
  TuningEntry e;
  e.id = s.integer(0);
  e.device.backend = parse_backend(s.text(1)).value_or(BackendKind::Host);
  e.device.name = s.text(2);
  e.device.vendor = s.text(3);
  e.device.driver = s.text(4);
  e.device.version = s.text(5);
  e.device.arch = s.text(6);
  e.variant_id = s.text(7);
  e.variant_hash = s.text(8);
  e.precision = parse_precision(s.text(9));
  e.storage = s.text(10);
  try {
    e.problem = classify_features(s.text(11), nlohmann::json::parse(s.text(13)));
    e.params = params_from_json(nlohmann::json::parse(s.text(14)), "the row", "params");
  } catch (const std::exception& err) {
    throw Error(fmt::format("tuning database {}: entry {} is damaged: {}", path.string(), e.id, err.what()));
  }
  e.rate = s.real(15);
  e.rate_lo = s.real(16);
  e.rate_hi = s.real(17);
  e.unit = s.text(18);
  e.experiment = s.text(19);
  e.point = static_cast<int>(s.integer(20));
  e.strategy = s.text(21);
  e.evaluations = static_cast<int>(s.integer(22));
  e.timestamp = s.text(23);
  if (const auto layout = s.text(24); !layout.empty()) {
    try {
      e.layout = layout_ref_from_json(nlohmann::json::parse(layout), fmt::format("entry {}", e.id));
    } catch (const std::exception& err) {
      throw Error(fmt::format("tuning database {}: entry {} is damaged: {}", path.string(), e.id, err.what()));
    }
  }
  return e;
}

}  // namespace

namespace {

// A path as an SQLite URI's path: the characters URIs reserve, percent-encoded.
std::string uri_path(const fs::path& p) {
  std::string out;
  for (unsigned char c : fs::absolute(p).string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

}  // namespace

TuningDb::TuningDb(const fs::path& path, bool create) : path_(path) {
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (exists) {
    if (!fs::is_regular_file(path, ec)) throw Error(fmt::format("{} is not a hetbench tuning database (not a file)", path.string()));
    check_header(path);
  } else if (!create) {
    throw Error(fmt::format("tuning database {} does not exist", path.string()));
  } else if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), ec);
    if (ec) throw Error(fmt::format("cannot create the folder of the tuning database {}: {}", path.string(), ec.message()));
  }
  // A database opened to be written must be writable now, not at the end of a tuning that
  // measured for an hour: SQLite would open a read-only file read-only without a word. Its
  // folder too: WAL keeps two files beside it.
  const auto dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (create) {
    std::string why;
    if (exists && ::access(path.c_str(), W_OK) != 0) why = std::strerror(errno);
    else if (::access(dir.c_str(), W_OK) != 0) why = fmt::format("its folder {}: {}", dir.string(), std::strerror(errno));
    if (!why.empty())
      throw Error(fmt::format("tuning database {} cannot be written ({}); give --db with a writable file, or --db none",
                              path.string(), why));
  }
  // One that is only read, on a read-only file system (or in a folder we cannot write),
  // cannot get WAL's shared-memory file: opened immutable, as nothing can change it there.
  const bool frozen = !create && (::access(dir.c_str(), W_OK) != 0 || ::access(path.c_str(), W_OK) != 0);
  const int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
  const std::string name = frozen ? "file:" + uri_path(path) + "?immutable=1" : !create ? "file:" + uri_path(path) : path.string();
  if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string m = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw Error(fmt::format("cannot open the tuning database {}: {}", path.string(), m));
  }
  try {
    sqlite3_busy_timeout(db_, kBusyMs);
    // A refused set-up may leave its read transaction open: rolled back before the next try.
    retry_while_busy<DbBusy>(
        std::chrono::milliseconds(kBusyMs), [&] { set_up(create); },
        [&] { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); });
  } catch (...) {
    sqlite3_close(db_);
    throw;
  }
}

void TuningDb::set_up(bool create) {
  const fs::path& path = path_;
  // Whose file is it? Read before anything is written, so a foreign file stays untouched.
  // Both reads in one read transaction: another process creating the file commits its
  // tables and its application_id together, and reads apart could see the tables
  // without the id and call the new file foreign.
  exec(db_, "BEGIN", path_);
  const auto app = pragma(db_, "application_id", path_);
  const auto tables = [&] {
    Stmt s(db_, "SELECT count(*) FROM sqlite_master", path_);
    return s.step() ? s.integer(0) : 0;
  }();
  exec(db_, "COMMIT", path_);
  if (app != kApplicationId && (app != 0 || tables != 0))
    throw Error(fmt::format("{} is an SQLite database but not a hetbench tuning database (application_id {:#x}); "
                            "it was left as it is",
                            path.string(), app));
  if (app == kApplicationId && pragma(db_, "user_version", path_) > kSchemaVersion)
    throw Error(fmt::format("tuning database {} has schema {}, newer than this hetbench's {}", path.string(),
                            pragma(db_, "user_version", path_), kSchemaVersion));
  if (!create) {
    empty_ = app == 0;
    has_layout_ = pragma(db_, "user_version", path_) >= 2;
    return;
  }
  exec(db_, "PRAGMA journal_mode=WAL", path_);
  if (app == kApplicationId && pragma(db_, "user_version", path_) < 2) {
    Transaction t(db_, path_);  // schema 1 -> 2, once: another writer may have done it
    if (pragma(db_, "user_version", path_) < 2) {
      exec(db_, "ALTER TABLE entries ADD COLUMN layout TEXT NOT NULL DEFAULT ''", path_);
      exec(db_, "PRAGMA user_version=2", path_);
    }
    t.commit();
  }
  if (app == 0) {
    // A new file: two processes may both get here; the second finds the schema made.
    Transaction t(db_, path_);
    if (pragma(db_, "application_id", path_) == 0) {
      exec(db_, kSchema, path_);
      exec(db_, fmt::format("PRAGMA application_id={}; PRAGMA user_version={}", kApplicationId, kSchemaVersion).c_str(),
           path_);
    }
    t.commit();
  }
}

TuningDb::~TuningDb() { sqlite3_close(db_); }

std::unique_ptr<TuningDb> TuningDb::open_if_exists(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return nullptr;
  return std::make_unique<TuningDb>(path, false);
}

std::pair<std::int64_t, bool> TuningDb::put(const TuningEntry& in) {
  TuningEntry e = in;
  if (e.timestamp.empty()) e.timestamp = now_utc();
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : e.params) params[k] = v;
  const std::string key_where =
      "backend=?1 AND dev_name=?2 AND dev_vendor=?3 AND dev_driver=?4 AND dev_version=?5 AND variant=?6 AND "
      "variant_hash=?7 AND precision=?8 AND storage=?9 AND op=?10 AND class=?11";
  auto bind_key = [&](Stmt& s) {
    s.bind(1, to_string(e.device.backend)).bind(2, e.device.name).bind(3, e.device.vendor).bind(4, e.device.driver);
    s.bind(5, e.device.version).bind(6, e.variant_id).bind(7, e.variant_hash).bind(8, std::string(name(e.precision)));
    s.bind(9, e.storage).bind(10, e.problem.op).bind(11, e.problem.label);
  };
  Transaction t(db_, path_);
  std::int64_t old_id = 0;
  {
    Stmt s(db_, "SELECT id, rate FROM entries WHERE " + key_where, path_);
    bind_key(s);
    if (s.step()) {
      old_id = s.integer(0);
      if (s.real(1) >= e.rate) {  // the entry there is at least as fast: keep it
        t.commit();
        return {old_id, false};
      }
    }
  }
  {
    Stmt s(db_, old_id ? "DELETE FROM entries WHERE id=?1" : "SELECT 1", path_);
    if (old_id) s.bind(1, old_id);
    s.step();
  }
  Stmt s(db_,
         "INSERT INTO entries (backend, dev_name, dev_vendor, dev_driver, dev_version, variant, variant_hash, precision, "
         "storage, op, class, dev_arch, features, params, rate, rate_lo, rate_hi, unit, experiment, point, strategy, "
         "evaluations, timestamp, layout) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,"
         "?22,?23,?24)",
         path_);
  bind_key(s);
  s.bind(12, e.device.arch).bind(13, e.problem.features.dump()).bind(14, params.dump()).bind(15, e.rate);
  s.bind(16, e.rate_lo).bind(17, e.rate_hi).bind(18, e.unit).bind(19, e.experiment).bind(20, std::int64_t{e.point});
  s.bind(21, e.strategy).bind(22, std::int64_t{e.evaluations}).bind(23, e.timestamp);
  s.bind(24, e.layout ? to_json(*e.layout).dump() : std::string());
  s.step();
  const auto id = sqlite3_last_insert_rowid(db_);
  t.commit();
  return {id, true};
}

std::vector<TuningEntry> TuningDb::select(const std::string& where, const std::vector<std::string>& args) const {
  if (empty_) return {};
  Stmt s(db_,
         fmt::format("SELECT {}{} FROM entries{}{} ORDER BY id", kColumns, kLayoutColumn[has_layout_ ? 1 : 0],
                     where.empty() ? "" : " WHERE ", where),
         path_);
  for (std::size_t i = 0; i < args.size(); ++i) s.bind(static_cast<int>(i + 1), args[i]);
  std::vector<TuningEntry> out;
  while (s.step()) out.push_back(row_entry(s, path_));
  return out;
}

std::optional<LookupHit> TuningDb::lookup(const LookupQuery& q) const {
  std::vector<TuningEntry> entries;
  for (const auto& v : q.variants)
    for (auto& e : select("variant=?1 AND variant_hash=?2 AND precision=?3 AND storage=?4",
                          {v.id, v.hash, std::string(name(q.precision)), q.storage}))
      entries.push_back(std::move(e));
  return nearest(entries, q);
}

std::optional<LookupHit> TuningDb::lookup(const DeviceIdentity& dev, const Variant& v, Precision p,
                                          const std::string& storage, const ProblemClass& problem) const {
  return lookup(LookupQuery{dev, {{v.id(), variant_hash(v)}}, p, storage, problem});
}

std::vector<TuningEntry> TuningDb::list() const { return select("", {}); }

std::vector<TuningEntry> TuningDb::entries_of(const std::vector<VariantKey>& variants, Precision p) const {
  std::vector<TuningEntry> out;
  for (const auto& v : variants)
    for (auto& e : select("variant=?1 AND variant_hash=?2 AND precision=?3", {v.id, v.hash, std::string(name(p))}))
      out.push_back(std::move(e));
  return out;
}

std::optional<TuningEntry> TuningDb::get(std::int64_t id) const {
  auto v = select("id=?1", {std::to_string(id)});
  if (v.empty()) return std::nullopt;
  return v.front();
}

int TuningDb::remove(const std::vector<std::int64_t>& ids) {
  Transaction t(db_, path_);
  int n = 0;
  for (auto id : ids) {
    Stmt s(db_, "DELETE FROM entries WHERE id=?1", path_);
    s.bind(1, id);
    s.step();
    n += sqlite3_changes(db_);
  }
  t.commit();
  return n;
}

}  // namespace hetbench::tuning
