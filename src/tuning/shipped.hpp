// The tuned entries that ship with hetbench (the folder tuned/, one `hetbench db export`
// file per device), read as a layer beneath the user's tuning database: the user's entry
// wins where both have one, and a shipped entry is used only for problems close to the
// ones its campaign measured (docs/tuning-db.md, "Shipped entries").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tuning/db.hpp"

namespace hetbench::tuning {

struct ShippedEntry {
  TuningEntry entry;
  std::string file;  // the file's name within the folder
};

// A shipped entry is used on its own device or architecture (never for another chip of
// the vendor), within this problem-class distance: its campaign's own shapes
// (and sizes within about 20 % of them), not their neighbourhood; the GEMM shape model
// serves the rest.
inline constexpr double kShippedReach = 0.25;

// Every entry of every *.json file in `dir` (`hetbench db export` format), in file and
// entry order; entry ids are their 1-based place in that order. Throws Error naming the
// file (and key) of a malformed one.
std::vector<ShippedEntry> read_shipped(const std::string& dir);
// The shipped folder: $HETBENCH_SHIPPED_TUNING (a folder, or "none" for no shipped
// entries), else hetbench's tuned/ folder; empty when there is none.
std::string shipped_dir();

// The user's database (may be null) over the shipped entries.
class LayeredLookup final : public TuningLookup {
 public:
  LayeredLookup(std::unique_ptr<TuningDb> user, std::vector<ShippedEntry> shipped);
  std::optional<LookupHit> lookup(const LookupQuery& q) const override;
  const TuningDb* user() const { return user_.get(); }

 private:
  std::unique_ptr<TuningDb> user_;
  std::vector<TuningEntry> entries_;  // the shipped entries (ids 1..), as `ranked` takes them
  std::vector<std::string> files_;    // files_[id - 1]: the entry's file
};

// The lookup `run` plans with: the database at `db_path` where it exists (empty: none)
// over the shipped entries.
std::unique_ptr<LayeredLookup> open_lookup(const std::string& db_path);

}  // namespace hetbench::tuning
