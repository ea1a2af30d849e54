// Bundles: experiments of a store as one JSON-lines file, gzip-compressed when its name
// ends in .gz (zlib reads either kind). Line 1 is the header with the format version;
// each experiment is a line {"experiment": {hash, points, system, json}} followed by its
// records, one a line, in their canonical text; the last line {"end": {...}} counts them,
// so a truncated file is told from a whole one (docs/store.md).
#include <unistd.h>

#include <zlib.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "engine/record/results.hpp"
#include "hetbench/error.hpp"
#include "store/backend.hpp"
#include "store/content.hpp"
#include "util/build_info.hpp"
#include "util/json_file.hpp"

namespace hetbench::store {

namespace fs = std::filesystem;

namespace {

// 2: an experiment line may carry its kernel files ("files": name -> content).
constexpr int kBundleVersion = 2;

class LineReader {
 public:
  explicit LineReader(const fs::path& file) : file_(file.string()) {
    gz_ = gzopen(file_.c_str(), "rb");
    if (!gz_) throw Error(fmt::format("cannot read bundle '{}'", file_));
    gzbuffer(gz_, 1 << 20);
  }
  ~LineReader() { gzclose(gz_); }
  // The next line without its newline; false at the end.
  bool next(std::string& line) {
    line.clear();
    char buf[1 << 16];
    for (;;) {
      if (!gzgets(gz_, buf, sizeof buf)) {
        int err = 0;
        const char* msg = gzerror(gz_, &err);
        if (err != Z_OK && err != Z_BUF_ERROR) throw Error(fmt::format("{}: {}", where(), msg));
        if (line.empty()) return false;
        ++line_;
        return true;  // a last line without its newline
      }
      const auto n = std::strlen(buf);
      line.append(buf, n);
      if (n && buf[n - 1] == '\n') {
        line.pop_back();
        ++line_;
        return true;
      }
    }
  }
  int line() const { return line_; }
  std::string where() const { return fmt::format("bundle '{}' line {}", file_, line_); }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  gzFile gz_ = nullptr;
  int line_ = 0;
};

nlohmann::json parse_line(const LineReader& in, const std::string& line) {
  try {
    return nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not JSON ({})", in.where(), json_error_text(e)));
  }
}

// A record as far as point_row reads it: the other keys (the samples, validation, energy,
// most of the record) are lexed but not built, which halves the parse; the record's text
// is kept whole beside its columns.
nlohmann::json parse_record(const std::string& where, const std::string& line) {
  static const std::set<std::string, std::less<>> columns{"point",  "op",     "variant", "variant_id", "backend",
                                                          "device", "device_name", "precision", "time", "status",
                                                          "sizes",  "params", "timing",  "gflops",     "gbs"};
  std::string top;
  try {
    return nlohmann::json::parse(line, [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& j) {
      if (ev != nlohmann::json::parse_event_t::key) return true;
      const auto& key = j.get_ref<const std::string&>();
      if (depth == 1) {
        top = key;
        return columns.count(key) > 0;
      }
      return depth != 2 || top != "timing" || key == "seconds";
    });
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not JSON ({})", where, json_error_text(e)));
  }
}

class LineWriter {
 public:
  // Written beside the bundle under a temporary name and renamed by close(): an export
  // stopped half-way (a damaged row, a full disk) leaves no bundle that looks whole.
  explicit LineWriter(const fs::path& file)
      : file_(file.string()), tmp_(fmt::format("{}.tmp-{}", file.string(), ::getpid())) {
    // "T": plain text; zlib writes the same API either way.
    const bool gz = file.extension() == ".gz";
    gz_ = gzopen(tmp_.c_str(), gz ? "wb6" : "wbT");
    if (!gz_) throw Error(fmt::format("cannot write bundle '{}'", file_));
    gzbuffer(gz_, 1 << 20);
  }
  ~LineWriter() {
    if (!gz_) return;
    gzclose(gz_);
    std::error_code ec;
    fs::remove(tmp_, ec);
  }
  void put(const std::string& s) {
    if (!s.empty() && gzwrite(gz_, s.data(), static_cast<unsigned>(s.size())) == 0) fail();
    if (gzputc(gz_, '\n') < 0) fail();
  }
  void close() {
    const int rc = gzclose(gz_);
    gz_ = nullptr;
    std::error_code ec;
    if (rc == Z_OK) fs::rename(tmp_, file_, ec);
    if (rc != Z_OK || ec) {
      fs::remove(tmp_, ec);
      throw Error(fmt::format("cannot write bundle '{}'", file_));
    }
  }

 private:
  [[noreturn]] void fail() {
    int err = 0;
    throw Error(fmt::format("cannot write bundle '{}': {}", file_, gzerror(gz_, &err)));
  }
  std::string file_, tmp_;
  gzFile gz_ = nullptr;
};

// The experiments of a bundle, parsed and their hashes checked on a thread of their own
// while the caller stores the previous ones: parsing and the database each take about
// half the time of an import.
class BundleParser {
 public:
  explicit BundleParser(const fs::path& file) : in_(file) {
    std::string line;
    if (!in_.next(line)) throw Error(fmt::format("bundle '{}' is empty", file.string()));
    const auto head = parse_line(in_, line);
    if (!head.is_object() || !head.contains("hetbench_bundle") || !head["hetbench_bundle"].is_number_integer())
      throw Error(fmt::format("{}: not a hetbench bundle (no 'hetbench_bundle' version)", in_.where()));
    const int version = head["hetbench_bundle"].get<int>();
    if (version > kBundleVersion)
      throw Error(fmt::format("bundle '{}' has format version {}, newer than this hetbench's {}: update hetbench to "
                              "import it; nothing was imported",
                              file.string(), version, kBundleVersion));
    thread_ = std::thread([this] { run(); });
  }
  ~BundleParser() {
    {
      std::lock_guard<std::mutex> l(m_);
      cancelled_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // The next experiment; nullopt after the end line. Rethrows the parser's error.
  std::optional<ExperimentContent> next() {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return !queue_.empty() || done_; });
    if (queue_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return std::nullopt;
    }
    auto e = std::move(queue_.front());
    queue_.pop_front();
    cv_.notify_all();
    return e;
  }

 private:
  void run() {
    try {
      while (auto e = read_experiment()) {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return queue_.size() < 4 || cancelled_; });
        if (cancelled_) return;
        queue_.push_back(std::move(*e));
        cv_.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> l(m_);
      error_ = std::current_exception();
    }
    std::lock_guard<std::mutex> l(m_);
    done_ = true;
    cv_.notify_all();
  }

  std::optional<ExperimentContent> read_experiment() {
    std::string line;
    const auto& file = in_.file();
    if (!in_.next(line))
      throw Error(fmt::format("bundle '{}' is truncated after line {} (no end line); nothing was imported", file,
                              in_.line()));
    const auto j = parse_line(in_, line);
    if (j.is_object() && j.contains("end")) {
      const auto& end = j["end"];
      if (end.value("experiments", -1) != experiments_ || end.value("points", std::int64_t{-1}) != points_)
        throw Error(fmt::format("{}: the end line counts other experiments or points than the bundle holds", in_.where()));
      if (in_.next(line)) throw Error(fmt::format("{}: text after the end line", in_.where()));
      return std::nullopt;
    }
    if (!j.is_object() || !j.contains("experiment") || !j["experiment"].is_object())
      throw Error(fmt::format("{}: expected an experiment line {{\"experiment\": ...}} or the end line", in_.where()));
    const auto& x = j["experiment"];
    const auto where = in_.where();
    if (!x.contains("hash") || !x["hash"].is_string() || !x.contains("points") || !x["points"].is_number_unsigned() ||
        !x.contains("json") || !x["json"].is_object() || !x.contains("system") || !x["system"].is_object())
      throw Error(fmt::format("{}: the experiment line needs 'hash', 'points', 'system' and 'json'", where));
    ExperimentContent e;
    e.hash = x["hash"].get<std::string>();
    e.experiment = x["json"];
    e.system = x["system"];
    if (x.contains("files")) {
      if (!x["files"].is_object()) throw Error(fmt::format("{}: 'files' must be an object of name: content", where));
      for (const auto& [name, content] : x["files"].items()) {
        if (!content.is_string()) throw Error(fmt::format("{}: kernel file '{}': content must be a string", where, name));
        e.files[name] = content.get<std::string>();
      }
    }
    check_kernel_files(e, where + " (nothing was imported)");
    const auto n = x["points"].get<std::int64_t>();
    std::vector<std::string> lines(static_cast<std::size_t>(n));
    const int first = in_.line() + 1;
    for (std::int64_t i = 0; i < n; ++i)
      if (!in_.next(lines[static_cast<std::size_t>(i)]))
        throw Error(fmt::format("bundle '{}' is truncated at line {}: the experiment of {} holds {} points, {} are "
                                "there; nothing was imported",
                                file, in_.line(), where, n, i));
    // Parsing is most of an import's work, and records parse apart: on every core. The
    // error reported is the first line's, as a serial parse would report it.
    e.points.resize(lines.size());
    std::int64_t bad = n;
    std::string message;
#pragma omp parallel for schedule(dynamic, 64)
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      try {
        const auto at = fmt::format("bundle '{}' line {}", file, first + i);
        const auto r = parse_record(at, lines[k]);
        e.points[k] = point_row(r, at, std::move(lines[k]));
      } catch (const std::exception& err) {
#pragma omp critical(store_bundle_error)
        if (i < bad) {
          bad = i;
          message = err.what();
        }
      }
    }
    if (bad < n) throw Error(message);
    if (content_hash(e) != e.hash)
      throw Error(fmt::format("{}: the experiment's content does not match its hash {} (the bundle was edited or "
                              "damaged); nothing was imported",
                              where, e.hash.substr(0, 12)));
    ++experiments_;
    points_ += n;
    return e;
  }

  LineReader in_;
  int experiments_ = 0;
  std::int64_t points_ = 0;
  std::thread thread_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<ExperimentContent> queue_;
  bool done_ = false, cancelled_ = false;
  std::exception_ptr error_;
};

}  // namespace

ImportCount Store::import_bundle(const fs::path& file) {
  ImportCount count;
  // One transaction: a bundle that fails anywhere leaves the store as it was. The parser
  // is destroyed (its thread stopped) before the transaction rolls back.
  Transaction t(*db_);
  BundleParser parser(file);
  while (auto e = parser.next()) {
    bool added = false;
    insert(*e, added);
    count.experiments += added;
    count.duplicates += !added;
    if (added) count.points += static_cast<std::int64_t>(e->points.size());
  }
  t.commit();
  return count;
}

std::int64_t Store::export_bundle(const fs::path& file, const std::vector<std::int64_t>& ids) {
  const auto list = experiments(ids);
  LineWriter out(file);
  out.put(nlohmann::json{{"hetbench_bundle", kBundleVersion},
                         {"created", now_iso8601()},
                         {"hetbench_version", HETBENCH_VERSION},
                         {"git_commit", git_commit()},
                         {"experiments", list.size()}}
              .dump());
  std::int64_t points = 0;
  for (const auto& s : list) {
    nlohmann::json system;
    db_->query("SELECT system FROM experiments WHERE id = $1", {std::to_string(s.id)},
               [&](const Cells& c) { system = parse_json_text(c.str(0), fmt::format("{}: experiment {}", db_->name(), s.id)); });
    std::vector<std::string> records;
    nlohmann::json experiment;
    read(s.id, experiment, [&](const std::string& r, const nlohmann::json&) { records.push_back(r); });
    nlohmann::json line = {{"hash", s.hash}, {"points", records.size()}, {"system", system}, {"json", experiment}};
    if (const auto files = kernel_files(experiment); !files.empty()) line["files"] = files;
    out.put(nlohmann::json{{"experiment", line}}.dump());
    for (const auto& r : records) out.put(r);
    points += static_cast<std::int64_t>(records.size());
  }
  out.put(nlohmann::json{{"end", {{"experiments", list.size()}, {"points", points}}}}.dump());
  out.close();
  return points;
}

}  // namespace hetbench::store
