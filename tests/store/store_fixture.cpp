#include "store_fixture.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <sstream>

namespace hetbench::test {

namespace fs = std::filesystem;

namespace {

// A server this process started (when no fixture gave one); stopped after the last test.
class PgServerEnv : public testing::Environment {
 public:
  void TearDown() override {
    if (dir_.empty()) return;
    std::system(fmt::format("{}/scripts/pg-test-server stop {} >/dev/null 2>&1", source_dir(), dir_.string()).c_str());
    fs::remove_all(dir_);
  }
  std::string start() {
    dir_ = fs::temp_directory_path() / fmt::format("hetbench-pg-{}", getpid());
    const auto cmd = fmt::format("{}/scripts/pg-test-server start {} {} 2>&1", source_dir(), dir_.string(),
                                 40000 + getpid() % 20000);
    if (std::system(cmd.c_str()) != 0) return "";
    return file_text(dir_ / "url");
  }

 private:
  fs::path dir_;
};

PgServerEnv* env = static_cast<PgServerEnv*>(testing::AddGlobalTestEnvironment(new PgServerEnv));

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string admin_exec(const std::string& url, const std::string& sql, bool soft = false) {
  PGconn* c = PQconnectdb(url.c_str());
  const bool ok = PQstatus(c) == CONNECTION_OK;
  std::string err = ok ? "" : PQerrorMessage(c), value;
  if (ok) {
    PGresult* r = PQexec(c, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) err = PQresultErrorMessage(r);
    else if (PQntuples(r) > 0) value = PQgetvalue(r, PQntuples(r) - 1, 0);
    PQclear(r);
  }
  PQfinish(c);
  if (!err.empty() && soft) return "error";
  if (!err.empty()) throw std::runtime_error(fmt::format("{}: {}: {}", url, sql, err));
  return value;
}

}  // namespace

std::string pg_admin_url() {
  static const std::string url = [] {
    if (const char* u = std::getenv("HETBENCH_PG_URL"); u && *u) return std::string(u);
    if (const char* d = std::getenv("HETBENCH_PG_DIR"); d && *d && fs::exists(fs::path(d) / "url"))
      return trim(file_text(fs::path(d) / "url"));
    return trim(env->start());
  }();
  if (url.empty())
    throw std::runtime_error("no PostgreSQL server for the store tests: scripts/pg-test-server could not start one "
                             "(install postgresql-15: scripts/setup-deps)");
  return url;
}

PgDatabase::PgDatabase() {
  static std::atomic<int> n{0};
  name_ = fmt::format("hbt_{}_{}_{}", getpid(), n++, fresh_seed() % 100000);
  const auto admin = pg_admin_url();
  admin_exec(admin, "CREATE DATABASE " + name_);
  const auto at = admin.find("/postgres");
  url_ = admin.substr(0, at) + "/" + name_ + admin.substr(at + 9);
}

PgDatabase::~PgDatabase() {
  try {
    admin_exec(pg_admin_url(), "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  } catch (...) {
  }
}

std::string PgDatabase::exec(const std::string& sql) const { return admin_exec(url_, sql, true); }

std::string FreshStore::exec(const std::string& sql) const {
  if (pg_) return pg_->exec(sql);
  sqlite3* db = nullptr;
  std::string value;
  sqlite3_open(url_.c_str(), &db);
  auto keep = [](void* out, int n, char** cells, char**) {
    if (n > 0) *static_cast<std::string*>(out) = cells[0] ? cells[0] : "";
    return 0;
  };
  const int rc = sqlite3_exec(db, sql.c_str(), keep, &value, nullptr);
  sqlite3_close(db);
  return rc == SQLITE_OK ? value : "error";
}

std::string file_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<nlohmann::json> records_of(const fs::path& dir) { return read_results(dir); }

fs::path synthetic_experiment(const fs::path& root, const std::string& name, const Machine& m, int points,
                              std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& [id, dname] : m.devices)
    devices.push_back({{"id", id}, {"name", dname}, {"vendor", dname.substr(0, dname.find(' '))},
                       {"driver", fmt::format("{}.{}", 500 + pick(80), pick(100))}, {"backend", id.substr(0, id.find(':'))},
                       {"max_clock_mhz", 1000 + pick(1000)}, {"compute_units", 1 + pick(132)}, {"type", "gpu"}});
  const nlohmann::json x = {{"hetbench_version", "0.1.0"}, {"git_commit", fmt::format("{:012x}", rng() >> 16)},
                            {"command_line", "hetbench sweep spec.json"}, {"name", name}, {"spec", nlohmann::json::object()},
                            {"runs", nlohmann::json::array()}, {"seed", seed}, {"host", {{"hostname", m.host}, {"os", "Debian GNU/Linux 12"}}},
                            {"compiler", "GNU 12.2.0"}, {"devices", devices},
                            {"start_time", fmt::format("2026-{:02}-{:02}T10:00:00Z", 1 + pick(12), 1 + pick(28))},
                            {"status", "running"}};
  ExperimentWriter w(root, name, x);
  const char* ops[] = {"gemm", "dot", "spmv", "axpy"};
  for (int i = 0; i < points; ++i) {
    const std::string op = ops[pick(4)];
    const auto& [dev, dname] = m.devices[static_cast<std::size_t>(pick(static_cast<int>(m.devices.size())))];
    nlohmann::json sizes;
    if (op == "gemm") sizes = {{"m", 64 << pick(6)}, {"n", 64 << pick(6)}, {"k", 64 << pick(6)}};
    else if (op == "spmv") sizes = {{"rows", 1000 + pick(9000)}, {"cols", 1000 + pick(9000)}, {"nnz", pick(100000)}};
    else sizes = {{"n", 1024 << pick(10)}};
    const double median = uni(1e-6, 1e-2);
    nlohmann::json samples = nlohmann::json::array();
    for (int s = 0; s < 5 + pick(10); ++s) samples.push_back(median * uni(0.95, 1.1));
    const bool ok = pick(10) != 0;
    nlohmann::json r = {{"point", i}, {"op", op}, {"variant", fmt::format("v{}", pick(5))},
                        {"variant_id", fmt::format("{}/{}/v{}", dev.substr(0, dev.find(':')), op, pick(5))},
                        {"backend", dev.substr(0, dev.find(':'))}, {"kind", "kernel"}, {"device", dev},
                        {"device_name", dname}, {"precision", pick(2) ? "S" : "D"}, {"sizes", sizes},
                        {"params", {{"ts", 8 << pick(3)}}}, {"seed", seed + static_cast<std::uint64_t>(i)},
                        {"time", fmt::format("2026-{:02}-{:02}T{:02}:{:02}:00Z", 1 + pick(12), 1 + pick(28), pick(24), pick(60))},
                        {"status", ok ? "ok" : "failed"}, {"flops", uni(1e6, 1e12)}, {"min_bytes", uni(1e6, 1e10)},
                        {"timing", {{"timed", "kernel"}, {"samples", samples},
                                    {"seconds", {{"median", median}, {"min", median * 0.95}, {"n", samples.size()}}}}},
                        {"gflops", uni(1, 5e4)}, {"gbs", uni(1, 4e3)}};
    if (!ok) r["message"] = "over the bound, \"quoted\"\tand\\escaped";
    w.append(r);
  }
  w.finish({{"status", "complete"}, {"points", points}});
  return w.dir();
}

}  // namespace hetbench::test
