// The results store: experiments (experiment.json, every point record, a system
// description and a content hash) in one SQLite file or a PostgreSQL database, queried
// by op, device, variant, precision, size and date, exported and imported as bundles
// that merge from several machines (docs/store.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench::store {

class Backend;

// $HETBENCH_STORE, else $XDG_DATA_HOME/hetbench/results.db, else
// ~/.local/share/hetbench/results.db.
std::string default_store_url();
// The store to use from an option value ("" = the default).
std::string resolve_store_url(const std::string& option);
bool is_postgres_url(const std::string& url);
// The URL without a password, for messages.
std::string redact_url(const std::string& url);

// One point as the store indexes it (the record itself is kept whole beside it).
struct PointRow {
  int point = 0;
  std::string op, variant, variant_id, backend, device, device_name, precision;
  std::string sizes, params;  // "k=v;k=v", as results.csv writes them
  std::string status, time;
  std::optional<double> median_s, gflops, gbs;
  std::string record;  // the canonical JSON text of the record (one results.jsonl line)
};

// An experiment ready to store: read from a folder or from a bundle.
struct ExperimentContent {
  nlohmann::json experiment;  // experiment.json
  nlohmann::json system;      // system_description(experiment)
  std::vector<PointRow> points;
  std::string hash;  // content_hash(): SHA-256 of experiment.json and every record, canonical
  // The kernel files the experiment ran from outside the build (experiment.json "kernels":
  // name "kernels/FILE" -> SHA-256), name -> content; experiment.json's hashes cover them.
  std::map<std::string, std::string> files;
};

// Checks `e.files` against experiment.json's "kernels": every file named there is present,
// named kernels/FILE (nothing that leaves the folder) and matches its SHA-256; throws Error
// naming `where` and the file.
void check_kernel_files(const ExperimentContent& e, const std::string& where);

// Host, OS, compiler, hetbench version and commit, and each device with its driver and
// clock, from what experiment.json records.
nlohmann::json system_description(const nlohmann::json& experiment);
// The columns of one record; throws Error naming `where` for a record that is not a
// hetbench point (hand-edited). `text`, when given, is the record's canonical text
// (a bundle's line; a line edited by hand then fails the content hash).
PointRow point_row(const nlohmann::json& record, const std::string& where, std::string text = {});
// Reads an experiment folder strictly: unlike read_results (which skips the torn last
// line of a killed run), any line that is not a record, including a truncated last one,
// is an error naming the file and line.
ExperimentContent read_experiment_folder(const std::filesystem::path& dir);

// Filters of `store query`; empty = any.
struct Filter {
  std::vector<std::int64_t> experiments;
  std::string op, device, variant, precision, host, status;
  std::vector<std::string> sizes;  // "n=1024" or "n=1000..4096" (all must hold)
  std::string since, until;        // ISO 8601 dates or times, compared with the point's time
};

struct ExperimentSummary {
  std::int64_t id = 0;
  std::string hash, name, host, start_time, added;
  std::int64_t points = 0;
};

// One row of a query, as views into the database's own row: valid only inside the
// callback (copying 62,000 rows' strings was a tenth of a query's time).
struct QueryRow {
  std::int64_t experiment = 0;
  int point = 0;
  std::string_view host, op, variant, variant_id, backend, device, device_name, precision, sizes, params, status, time;
  std::optional<double> median_s, gflops, gbs;
};

struct ImportCount {
  int experiments = 0, duplicates = 0;
  std::int64_t points = 0;
};

class Store {
 public:
  // Opens (creating the schema in an empty database) the store at `url`: a file path or
  // postgresql://... Throws Error naming the store for one that cannot be reached, a
  // database that is not a hetbench store, or a newer schema; such a store is not written.
  explicit Store(const std::string& url);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  const std::string& url() const { return url_; }

  // Adds experiments in one transaction; one already stored (same content hash) adds
  // nothing. Returns the ids (the existing one for a duplicate).
  std::vector<std::int64_t> add(const std::vector<ExperimentContent>& experiments, ImportCount* count = nullptr);
  // The same for experiment folders, read one at a time (read_experiment_folder) within
  // the transaction: a bad folder changes nothing, and memory holds one experiment.
  std::vector<std::int64_t> add_folders(const std::vector<std::filesystem::path>& dirs, ImportCount* count = nullptr);
  ImportCount import_bundle(const std::filesystem::path& file);
  // Writes the given experiments (all when empty) as a bundle; returns the points written.
  std::int64_t export_bundle(const std::filesystem::path& file, const std::vector<std::int64_t>& ids);

  std::vector<ExperimentSummary> experiments(const std::vector<std::int64_t>& ids = {});
  void query(const Filter& f, const std::function<void(const QueryRow&)>& row);
  // An id ("12") or a hash prefix of at least 8 hex digits; throws Error when none or
  // several match.
  std::int64_t resolve(const std::string& ref);
  // experiment.json and the records of one experiment, in point order: each record's
  // stored text and its parsed form. Throws Error naming the row that is not a record.
  void read(std::int64_t id, nlohmann::json& experiment,
            const std::function<void(const std::string& text, const nlohmann::json& record)>& each);
  // Writes experiment `id` as an experiment folder <dir>/<its folder name>; returns it.
  std::filesystem::path write_folder(std::int64_t id, const std::filesystem::path& dir);
  // The kernel files an experiment.json names ("kernels"), name -> content; Error naming a
  // file the store lacks.
  std::map<std::string, std::string> kernel_files(const nlohmann::json& experiment);

 private:
  void open_schema();
  std::int64_t insert(const ExperimentContent& e, bool& added);
  std::vector<std::int64_t> add_each(std::size_t n, const std::function<const ExperimentContent&()>& next,
                                     ImportCount* count);
  std::string url_;
  std::unique_ptr<Backend> db_;
};

// For replay, compare and report: an argument "store:REF" (REF as Store::resolve takes)
// is written from the store at `store_option` (as --store takes) into a new folder under
// `scratch` and that folder is returned; any other argument is returned as it is.
bool is_store_ref(const std::string& arg);
std::filesystem::path experiment_folder(const std::string& arg, const std::string& store_option,
                                        const std::filesystem::path& scratch);

}  // namespace hetbench::store
