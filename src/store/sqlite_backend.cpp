// The store in one SQLite file, as the tuning database keeps its file (src/tuning/db.cpp):
// anything but an SQLite file is refused before SQLite may touch it, an application id
// marks the file, WAL and a busy timeout let processes share it, and writes go in
// BEGIN IMMEDIATE. Points go in through one prepared statement with typed values.
#include <sqlite3.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "store/backend.hpp"

namespace hetbench::store {

namespace fs = std::filesystem;

namespace {

constexpr int kApplicationId = 0x48425253;  // "HBRS"
constexpr int kBusyMs = 60000;

class SqliteCells final : public Cells {
 public:
  explicit SqliteCells(sqlite3_stmt* s) : s_(s) {}
  bool null(int c) const override { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
  std::string_view text(int c) const override {
    const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
    return t ? std::string_view(t, static_cast<std::size_t>(sqlite3_column_bytes(s_, c))) : std::string_view();
  }
  // Not through text(): SQLite would convert the stored integer to text in place.
  std::int64_t integer(int c) const override { return sqlite3_column_int64(s_, c); }
  std::optional<double> real(int c) const override {
    if (null(c)) return std::nullopt;
    return sqlite3_column_double(s_, c);
  }

 private:
  sqlite3_stmt* s_;
};

class SqliteBackend final : public Backend {
 public:
  explicit SqliteBackend(const std::string& path) : path_(path) {
    name_ = "store " + path;
    std::error_code ec;
    if (fs::exists(path, ec)) {
      if (!fs::is_regular_file(path, ec)) throw Error(fmt::format("{}: not a file", name_));
      std::ifstream f(path, std::ios::binary);
      char head[16] = {0};
      f.read(head, sizeof head);
      if (f.gcount() != 0 && (f.gcount() < 16 || std::memcmp(head, "SQLite format 3", 16) != 0))
        throw Error(fmt::format("{} is not a hetbench results store (not an SQLite file); it was left as it is", path));
    } else if (fs::path(path).has_parent_path()) {
      fs::create_directories(fs::path(path).parent_path(), ec);
      if (ec) throw Error(fmt::format("{}: cannot create its folder: {}", name_, ec.message()));
    }
    // NOMUTEX: a Store and its connection belong to one thread at a time (bundle parsing
    // runs on other threads but hands rows to the owner), so SQLite's per-call mutexes only
    // cost time: a sixth of a query's, two of them for every cell read.
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK) {
      std::string m = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw Error(fmt::format("{}: cannot open: {}", name_, m));
    }
    sqlite3_busy_timeout(db_, kBusyMs);
    try {
      check_file();
    } catch (...) {
      sqlite3_close(db_);
      throw;
    }
  }
  ~SqliteBackend() override {
    sqlite3_finalize(insert_);
    sqlite3_close(db_);
  }

  void exec(const std::string& sql) override {
    char* msg = nullptr;
    if (const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg); rc != SQLITE_OK) {
      std::string m = fmt::format("{}: {}", name_, msg ? msg : sqlite3_errmsg(db_));
      sqlite3_free(msg);
      if (busy(rc)) throw BackendBusy(m);
      throw Error(m);
    }
  }

  void query(const std::string& sql, const Params& params, const std::function<void(const Cells&)>& row) override {
    std::string q = sql;  // $N -> ?N: SQLite numbers ?N parameters as given
    for (auto& c : q)
      if (c == '$') c = '?';
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, q.c_str(), -1, &s, nullptr) != SQLITE_OK) fail("preparing a statement");
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } fin{s};
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      if (params[i]) sqlite3_bind_text(s, at, params[i]->c_str(), static_cast<int>(params[i]->size()), SQLITE_TRANSIENT);
      else sqlite3_bind_null(s, at);
    }
    SqliteCells cells(s);
    for (;;) {
      const int rc = sqlite3_step(s);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) fail("reading or writing");
      row(cells);
    }
  }

  // The file's application_id: 0 (a new file, or a store from before the id) or the
  // store's; another application's is refused, the file left as it is.
  std::int64_t application_id() {
    std::int64_t app = 0;
    query("PRAGMA application_id", {}, [&](const Cells& c) { app = c.integer(0); });
    if (app != 0 && app != kApplicationId)
      throw Error(fmt::format("{} is an SQLite database but not a hetbench results store (application_id {:#x}); "
                              "it was left as it is",
                              path_, app));
    return app;
  }

  // Whose file, and is it whole? Asked at every open, before anything is read or written:
  // another application's database (its own application_id, tables or not) and a file
  // SQLite finds damaged are refused untouched. quick_check reads every page once (about
  // a second per GB), which a store's reader pays to never hand on damaged rows.
  void check_file() {
    (void)application_id();
    std::string verdict;
    std::size_t problems = 0;
    try {
      query("PRAGMA quick_check(20)", {}, [&](const Cells& c) {
        if (problems++ == 0) verdict = c.str(0);
      });
    } catch (const BackendBusy&) {
      throw;
    } catch (const Error&) {  // pages too damaged to walk: the check itself stops
      verdict = sqlite3_errmsg(db_);
    }
    if (verdict != "ok")
      throw Error(fmt::format("{} is damaged (SQLite's quick_check: {}{}); it was left as it is: restore it from a copy "
                              "or from bundles (store export, store import)",
                              path_, verdict, problems > 1 ? fmt::format(", and {} more", problems - 1) : ""));
  }

  void begin() override { exec("BEGIN IMMEDIATE"); }
  void commit() override { exec("COMMIT"); }
  void rollback() override { exec("ROLLBACK"); }

  std::vector<std::string> tables() override {
    std::vector<std::string> out;
    query("SELECT name FROM sqlite_master WHERE type='table'", {}, [&](const Cells& c) { out.push_back(c.str(0)); });
    return out;
  }

  std::string schema() const override { return schema_sql("INTEGER PRIMARY KEY AUTOINCREMENT", "REAL"); }

  void lock_schema() override {
    // The id lets `file` and sqlite3 tell a store from other databases; asked again here
    // in the schema's transaction, as another process may have set it since the open.
    if (application_id() == 0) exec(fmt::format("PRAGMA application_id={}", kApplicationId));
  }

  void ready() override {
    // WAL with synchronous=NORMAL: a commit survives a process crash; only a power loss
    // may take back the last commits, never corrupt the file.
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec("PRAGMA cache_size=-65536");  // 64 MiB: the indexes of a large import stay in memory
  }

  void insert_points(std::int64_t experiment, const std::vector<PointRow>& rows) override {
    if (!insert_) {
      const char* sql =
          "INSERT INTO points (experiment_id, point, op, variant, variant_id, backend, device, device_name, precision, "
          "sizes, params, status, time, median_s, gflops, gbs, record) "
          "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)";
      if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &insert_, nullptr) != SQLITE_OK)
        fail("preparing a statement");
    }
    auto text = [&](int i, const std::string& v) {
      sqlite3_bind_text(insert_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
    };
    auto real = [&](int i, const std::optional<double>& v) {
      if (v) sqlite3_bind_double(insert_, i, *v);
      else sqlite3_bind_null(insert_, i);
    };
    for (const auto& p : rows) {
      sqlite3_bind_int64(insert_, 1, experiment);
      sqlite3_bind_int64(insert_, 2, p.point);
      text(3, p.op), text(4, p.variant), text(5, p.variant_id), text(6, p.backend), text(7, p.device);
      text(8, p.device_name), text(9, p.precision), text(10, p.sizes), text(11, p.params), text(12, p.status);
      text(13, p.time), real(14, p.median_s), real(15, p.gflops), real(16, p.gbs), text(17, p.record);
      const int rc = sqlite3_step(insert_);
      sqlite3_reset(insert_);
      if (rc != SQLITE_DONE) fail("writing a point");
    }
  }

 private:
  // Right after the call that failed, whose code sqlite3_errcode still holds.
  [[noreturn]] void fail(const char* what) const {
    const auto m = fmt::format("{}: {}: {}", name_, what, sqlite3_errmsg(db_));
    if (busy(sqlite3_errcode(db_))) throw BackendBusy(m);
    throw Error(m);
  }
  static bool busy(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }
  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
};

}  // namespace

std::unique_ptr<Backend> open_sqlite(const std::string& path) { return std::make_unique<SqliteBackend>(path); }

}  // namespace hetbench::store
