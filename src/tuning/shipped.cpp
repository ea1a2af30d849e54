#include "tuning/shipped.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "util/json_file.hpp"

namespace hetbench::tuning {

namespace fs = std::filesystem;

std::string describe(const LookupHit& h) {
  return fmt::format("{}{} {}, distance {:.3g}", h.layer.empty() ? "db:" : h.layer + ":", h.entry.id,
                     to_string(h.level), h.distance);
}

std::vector<ShippedEntry> read_shipped(const std::string& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<ShippedEntry> out;
  for (const auto& f : files) {
    const auto j = read_json_file(f.string());
    if (!j.is_object() || !j.contains("entries") || !j["entries"].is_array())
      throw Error(fmt::format("{}: key 'entries': expected an array (a file written by `hetbench db export`)", f.string()));
    for (std::size_t i = 0; i < j["entries"].size(); ++i) {
      ShippedEntry s{entry_from_json(j["entries"][i], fmt::format("{} entries[{}]", f.string(), i)),
                     f.filename().string()};
      s.entry.id = static_cast<std::int64_t>(out.size() + 1);
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::string shipped_dir() {
  if (const char* d = std::getenv("HETBENCH_SHIPPED_TUNING"); d && *d)
    return std::string(d) == "none" ? std::string() : std::string(d);
  try {
    return data_dir("tuned");
  } catch (const Error&) {
    return {};
  }
}

LayeredLookup::LayeredLookup(std::unique_ptr<TuningDb> user, std::vector<ShippedEntry> shipped)
    : user_(std::move(user)) {
  for (auto& s : shipped) {
    entries_.push_back(std::move(s.entry));
    entries_.back().id = static_cast<std::int64_t>(entries_.size());  // read_shipped's numbering: the place
    files_.push_back(std::move(s.file));
  }
}

std::optional<LookupHit> LayeredLookup::lookup(const LookupQuery& q) const {
  if (user_)
    if (auto hit = user_->lookup(q)) return hit;
  for (auto& hit : ranked(entries_, q)) {
    // A shipped entry speaks for its device and architecture: another of the vendor's
    // chips (other SM counts, caches, instructions) is the shape model's to judge.
    if (hit.distance > kShippedReach || hit.level == Fallback::SameVendor) continue;
    hit.layer = "shipped " + files_[static_cast<std::size_t>(hit.entry.id - 1)];
    return std::move(hit);
  }
  return std::nullopt;
}

std::unique_ptr<LayeredLookup> open_lookup(const std::string& db_path) {
  auto user = db_path.empty() ? nullptr : TuningDb::open_if_exists(db_path);
  const auto dir = shipped_dir();
  return std::make_unique<LayeredLookup>(std::move(user), dir.empty() ? std::vector<ShippedEntry>{} : read_shipped(dir));
}

}  // namespace hetbench::tuning
