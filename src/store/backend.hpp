// One store interface, two databases: SQLite (sqlite_backend.cpp, libsqlite3) and
// PostgreSQL (pg_backend.cpp, libpq). The store (store.cpp) writes its SQL once, with
// $1..$n parameters, in the dialect both accept; a backend adds only what differs: its
// column types, listing tables, and the fast path for many points.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/error.hpp"
#include "store/store.hpp"

namespace hetbench::store {

// One result row; numbers come back as text from both databases.
class Cells {
 public:
  virtual ~Cells() = default;
  virtual bool null(int c) const = 0;
  virtual std::string_view text(int c) const = 0;
  std::string str(int c) const { return std::string(text(c)); }
  virtual std::int64_t integer(int c) const;
  virtual std::optional<double> real(int c) const;  // SQLite: the stored double, not its text
};

using Params = std::vector<std::optional<std::string>>;

// SQLite answered SQLITE_BUSY or SQLITE_LOCKED past its busy handler (two processes meeting
// in a lock upgrade while they create one store): opening a store retries on it.
class BackendBusy : public Error {
 public:
  using Error::Error;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // "store <path or redacted URL>", the prefix of every message.
  const std::string& name() const { return name_; }
  virtual void exec(const std::string& sql) = 0;
  virtual void query(const std::string& sql, const Params& params, const std::function<void(const Cells&)>& row) = 0;
  // A write transaction (BEGIN IMMEDIATE on SQLite: writers queue instead of failing).
  virtual void begin() = 0;
  virtual void commit() = 0;
  virtual void rollback() = 0;
  virtual std::vector<std::string> tables() = 0;
  // The schema's DDL in this dialect.
  virtual std::string schema() const = 0;
  // Within begin(): serialises creating the schema between processes.
  virtual void lock_schema() {}
  // Once the database is known to be a store (or was empty): settings for writing.
  virtual void ready() {}
  virtual void insert_points(std::int64_t experiment, const std::vector<PointRow>& rows) = 0;

 protected:
  std::string name_;
};

std::unique_ptr<Backend> open_sqlite(const std::string& path);
std::unique_ptr<Backend> open_postgres(const std::string& url);

// The schema, with {id} (an auto-increment primary key) and {real} for the dialect.
std::string schema_sql(const std::string& id_type, const std::string& real_type);
inline constexpr int kSchemaVersion = 1;
inline constexpr const char* kApplication = "hetbench results store";

// A transaction that rolls back unless committed (an exception on the way out).
class Transaction {
 public:
  explicit Transaction(Backend& b) : b_(b) { b_.begin(); }
  ~Transaction() {
    if (!done_) try {
        b_.rollback();
      } catch (...) {
      }
  }
  void commit() {
    b_.commit();
    done_ = true;
  }

 private:
  Backend& b_;
  bool done_ = false;
};

}  // namespace hetbench::store
