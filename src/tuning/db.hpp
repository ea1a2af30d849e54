// The tuning database: the best parameters found for a variant on a device, per
// precision, storage/layout and problem class, in one SQLite file
// (docs/tuning-db.md). `hetbench tune` writes it with put(); `run` and `--variant auto`
// read it through the TuningLookup interface, which plan tests replace with a fake.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/device.hpp"
#include "hetbench/precision.hpp"
#include "hetbench/variant.hpp"
#include "ops/layout_ref.hpp"
#include "tuning/problem_class.hpp"

struct sqlite3;

namespace hetbench::tuning {

// Who a device is, for the database: entries are looked up on the same device first, then
// the same architecture, then the same vendor.
struct DeviceIdentity {
  BackendKind backend = BackendKind::Host;
  std::string name, vendor, driver;
  std::string version;  // CUDA compute capability ("9.0") or the OpenCL version
  std::string arch;     // "sm_90", or vendor + OpenCL version + device type elsewhere
  static DeviceIdentity of(const DeviceInfo& d);
  bool operator==(const DeviceIdentity&) const = default;
};
nlohmann::json to_json(const DeviceIdentity& d);
DeviceIdentity device_identity_from_json(const nlohmann::json& j, const std::string& where);

// Hash of what a variant is built from: a kernel's source text (its includes and file)
// and its metadata; for host and library variants their id and hetbench's version. An
// entry whose hash differs from the variant's current one is stale and never used.
std::string variant_hash(const Variant& v);
// The storage/layout key of a problem: its choice axes ("ta=T;tb=N", "storage=soa"),
// empty for ops without choices.
std::string storage_key(const Op& op, const Sizes& s);

struct TuningEntry {
  std::int64_t id = 0;  // given by the database
  DeviceIdentity device;
  std::string variant_id;    // backend/op/name
  std::string variant_hash;  // variant_hash() when tuned
  Precision precision = Precision::S;
  std::string storage;       // storage_key()
  ProblemClass problem;      // classify(); the key uses op and label, lookup the coords
  ParamValues params;        // the best parameters
  // The best layout, for ops that place records by one (nbody, stencil3d); tuned like a
  // parameter, so it is no part of the key: the entry of a class holds the layout and
  // parameters that were fastest together. Empty: the op's default layout, or no layout.
  std::optional<LayoutRef> layout;
  double rate = 0, rate_lo = 0, rate_hi = 0;  // median and its confidence interval
  std::string unit;          // "GFLOP/s" or "GB/s"
  std::string experiment;    // folder the measurement is in
  int point = -1;            // its point index there
  std::string strategy;      // e.g. "exhaustive", "annealing"
  int evaluations = 0;
  std::string timestamp;     // ISO 8601 UTC; now when left empty on put()
};
nlohmann::json to_json(const TuningEntry& e);
// Throws Error naming `where` and the key.
TuningEntry entry_from_json(const nlohmann::json& j, const std::string& where);

enum class Fallback { SameDevice, SameArch, SameVendor };
std::string to_string(Fallback f);  // "same device", "same architecture", "same vendor"

struct LookupHit {
  TuningEntry entry;
  double distance = 0;  // problem-class distance (docs/tuning-db.md)
  Fallback level = Fallback::SameDevice;
  std::string layer;    // empty: the user's database; else the shipped file ("shipped nvidia-h200.json")
};
// How a hit is named in param_source and auto's reason: "db:12 same device, distance 0"
// or "shipped nvidia-h200.json:3 same device, distance 0".
std::string describe(const LookupHit& h);

// One variant as the lookup sees it.
struct VariantKey {
  std::string id, hash;
};

struct LookupQuery {
  DeviceIdentity device;
  std::vector<VariantKey> variants;  // one for a named variant; the op's own for auto
  Precision precision = Precision::S;
  std::string storage;
  ProblemClass problem;
};

// What planning needs of the database; plan tests pass a fake.
class TuningLookup {
 public:
  virtual ~TuningLookup() = default;
  // The nearest entry of any of the variants with a matching hash, precision and storage:
  // on the same device if there is one, else the same architecture, else the same vendor.
  virtual std::optional<LookupHit> lookup(const LookupQuery& q) const = 0;
};

// The entries among `entries` of the query's variants (current hash), precision and
// backend on the same device, architecture or vendor, best first: the closest fallback
// level, then the nearest problem class, then the faster. No reach cut-off.
std::vector<LookupHit> ranked(const std::vector<TuningEntry>& entries, const LookupQuery& q);
// The nearest entry among `entries` for `q` (the rule every TuningLookup follows): the
// first of `ranked` within reach of the query's class.
std::optional<LookupHit> nearest(const std::vector<TuningEntry>& entries, const LookupQuery& q);

// $HETBENCH_DB, else $XDG_DATA_HOME/hetbench/tuning.db, else ~/.local/share/hetbench/tuning.db.
// "none" (from --db or the variable) means no database.
std::string default_db_path();
// The path to use from an option value ("" = the default); empty for "none".
std::string resolve_db_path(const std::string& option);

class TuningDb final : public TuningLookup {
 public:
  // Opens (creating the file and its folder when `create`) a hetbench tuning database.
  // Throws Error naming the path for a file that is not one (another SQLite database, a
  // corrupt file, a newer schema); such a file is never written.
  explicit TuningDb(const std::filesystem::path& path, bool create = true);
  ~TuningDb() override;
  TuningDb(const TuningDb&) = delete;
  TuningDb& operator=(const TuningDb&) = delete;
  // Opens for reading only when the file exists; nullptr when it does not (nothing to use).
  static std::unique_ptr<TuningDb> open_if_exists(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  // Stores an entry in one transaction. For the same key (device, variant, hash,
  // precision, storage, class label) the better rate wins. Returns the id of the entry
  // that holds the key afterwards and whether `e` was stored.
  std::pair<std::int64_t, bool> put(const TuningEntry& e);
  std::optional<LookupHit> lookup(const LookupQuery& q) const override;
  // Convenience for one variant.
  std::optional<LookupHit> lookup(const DeviceIdentity& dev, const Variant& v, Precision p, const std::string& storage,
                                  const ProblemClass& problem) const;
  std::vector<TuningEntry> list() const;
  // The entries of these variants (id and hash) in precision p, whatever their storage
  // and class: where a tuning of the variant may start (tune/db_hook.hpp).
  std::vector<TuningEntry> entries_of(const std::vector<VariantKey>& variants, Precision p) const;
  std::optional<TuningEntry> get(std::int64_t id) const;
  // Removes the entries with these ids in one transaction; returns how many went.
  int remove(const std::vector<std::int64_t>& ids);

 private:
  std::vector<TuningEntry> select(const std::string& where, const std::vector<std::string>& args) const;
  // Reads the file's identity and, with `create`, makes it WAL and writes the schema;
  // throws Error for a foreign or newer file.
  void set_up(bool create);
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
  bool empty_ = false;  // opened read-only before anything was written: no table yet
  bool has_layout_ = true;  // false: a schema-1 file opened for reading
};

}  // namespace hetbench::tuning
