// What the store tests share: a real PostgreSQL server (the one the CTest fixture
// started, or one started here through scripts/pg-test-server when the binary runs by
// hand; a server that cannot start fails every test, it never skips), a fresh store per
// test on either backend, and synthetic experiments written as hetbench writes them.
#pragma once

#include <libpq-fe.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"
#include "engine/record/results.hpp"
#include "store/store.hpp"

namespace hetbench::test {

// The URL of the server's maintenance database ("postgres").
std::string pg_admin_url();

// A PostgreSQL database made for one test, dropped at the end.
class PgDatabase {
 public:
  PgDatabase();
  ~PgDatabase();
  const std::string& url() const { return url_; }
  std::string exec(const std::string& sql) const;  // as FreshStore::exec

 private:
  std::string name_, url_;
};

// A store of one kind ("sqlite" or "postgres"), empty, for one test.
class FreshStore {
 public:
  explicit FreshStore(const std::string& kind) {
    if (kind == "postgres") pg_ = std::make_unique<PgDatabase>();
    url_ = pg_ ? pg_->url() : (dir_.path() / "results.db").string();
  }
  const std::string& url() const { return url_; }
  const PgDatabase* pg() const { return pg_.get(); }
  // Runs SQL straight on the database (not through the store); returns the first
  // value of the last row, "" when none, "error" when the SQL fails.
  std::string exec(const std::string& sql) const;

 private:
  TempDir dir_;
  std::unique_ptr<PgDatabase> pg_;
  std::string url_;
};

struct Machine {
  std::string host;
  std::vector<std::pair<std::string, std::string>> devices;  // id, name
};

// An experiment folder as ExperimentWriter writes one: `points` records of random ops,
// devices of `m`, sizes, precisions and timings from `seed`. Returns the folder.
std::filesystem::path synthetic_experiment(const std::filesystem::path& root, const std::string& name,
                                           const Machine& m, int points, std::uint64_t seed);
// Its records, read back.
std::vector<nlohmann::json> records_of(const std::filesystem::path& dir);
std::string file_text(const std::filesystem::path& p);

// Each store test runs on both backends.
class StoreTest : public testing::TestWithParam<std::string> {
 protected:
  FreshStore fresh{GetParam()};
  TempDir tmp;
  std::uint64_t seed = fresh_seed();
  const Machine a{"alpha", {{"cuda:0", "NVIDIA H200"}, {"opencl:0:0", "pthread-AMD EPYC"}}};
  const Machine b{"beta", {{"cuda:0", "NVIDIA A100"}, {"host", "AMD EPYC 7763"}}};
};

// What a test keeps of a query's row: QueryRow's views end with the callback.
struct KeptRow {
  std::int64_t experiment = 0;
  int point = 0;
  std::string host, precision, sizes;
  std::optional<double> gflops, median_s;
  explicit KeptRow(const store::QueryRow& r)
      : experiment(r.experiment), point(r.point), host(r.host), precision(r.precision), sizes(r.sizes),
        gflops(r.gflops), median_s(r.median_s) {}
};

}  // namespace hetbench::test
