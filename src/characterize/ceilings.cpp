#include "characterize/ceilings.hpp"

#include <unistd.h>

#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "util/cache.hpp"
#include "hetbench/dfdd.hpp"
#include "hetbench/error.hpp"
#include "hetbench/observer.hpp"

namespace hetbench {

namespace fs = std::filesystem;

namespace {

nlohmann::json value_json(const std::optional<CeilingValue>& v, const char* unit) {
  if (!v) return nullptr;
  return {{unit, v->value},     {"variant_id", v->variant_id}, {"params", v->params},
          {"sizes", v->sizes},  {"precision", v->precision}};
}

std::optional<CeilingValue> value_from(const nlohmann::json& j, const char* unit) {
  if (!j.is_object() || !j.contains(unit) || !j[unit].is_number()) return std::nullopt;
  CeilingValue v;
  v.value = j[unit].get<double>();
  if (!(v.value > 0)) return std::nullopt;
  v.variant_id = j.value("variant_id", "");
  v.params = j.value("params", nlohmann::json::object());
  v.sizes = j.value("sizes", nlohmann::json::object());
  v.precision = j.value("precision", "");
  return v;
}

std::string sanitise(const std::string& id) {
  std::string s;
  for (char c : id) s += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return s;
}

// What identifies the hardware and driver behind a device id; a file measured under
// another driver (or on another machine with the same id) is not used.
std::string identity(const DeviceInfo& d) {
  return fmt::format("{}\n{}\n{}\n{}", d.name, d.vendor, d.driver, d.version);
}

}  // namespace

std::optional<double> Ceilings::peak_gflops(Precision p) const {
  switch (p) {
    case Precision::S: return peak_s ? std::optional<double>(peak_s->value) : std::nullopt;
    case Precision::D: return peak_d ? std::optional<double>(peak_d->value) : std::nullopt;
    // A double-word multiply-add costs at least op_counts::mad_sloppy.ops() (16) word
    // instructions, each at most one FMA issue (Mukunoki & Imamura), and counts 2 flops
    // like a word FMA: the peak of the precision's own flops is the word peak / 16.
    case Precision::DF: return peak_s ? std::optional<double>(peak_s->value / op_counts::mad_sloppy.ops()) : std::nullopt;
    case Precision::DD: return peak_d ? std::optional<double>(peak_d->value / op_counts::mad_sloppy.ops()) : std::nullopt;
    case Precision::I32: return std::nullopt;  // no integer peak is measured
  }
  return std::nullopt;
}

nlohmann::json to_json(const Ceilings& c) {
  return {{"format", "hetbench-ceilings-1"},
          {"device", {{"id", c.device_id}, {"name", c.device_name}, {"driver", c.driver}}},
          {"date", c.date},
          {"experiment", c.experiment},
          {"copy_gbs", value_json(c.copy, "gbs")},
          {"copy_gbs_by_precision", {{"S", value_json(c.copy_s, "gbs")}, {"D", value_json(c.copy_d, "gbs")}}},
          {"gflops", {{"S", value_json(c.peak_s, "gflops")}, {"D", value_json(c.peak_d, "gflops")}}},
          {"note", "copy GB/s counts bytes read + written; GFLOP/s counts an FMA as 2 flops"}};
}

fs::path ceilings_path(const DeviceInfo& d) {
  return cache_root() / "ceilings" / (sanitise(d.id) + "-" + hash_hex(identity(d)) + ".json");
}

std::optional<Ceilings> load_ceilings(const DeviceInfo& d) {
  const auto path = ceilings_path(d);
  std::ifstream f(path);
  if (!f) return std::nullopt;
  auto warn_once = [&](const std::string& why) {
    static std::mutex mu;
    static std::set<std::string> warned;
    std::lock_guard lock(mu);
    if (warned.insert(path.string()).second)
      fmt::print(stderr, "hetbench: warning: ignoring ceilings file '{}': {}\n", path.string(), why);
    return std::nullopt;
  };
  nlohmann::json j;
  try {
    std::stringstream ss;
    ss << f.rdbuf();
    j = nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::exception& e) {
    warn_once(fmt::format("invalid JSON ({}); run `hetbench ceilings {}` again", e.what(), d.id));
    return std::nullopt;
  }
  if (!j.is_object() || j.value("format", "") != "hetbench-ceilings-1" || !j.contains("device"))
    return warn_once("not a hetbench ceilings file");
  const auto& dev = j["device"];
  // The file name's hash could collide; the stored name and driver cannot.
  if (dev.value("name", "") != d.name || dev.value("driver", "") != d.driver) return std::nullopt;
  Ceilings c;
  c.device_id = dev.value("id", "");
  c.device_name = dev.value("name", "");
  c.driver = dev.value("driver", "");
  c.date = j.value("date", "");
  c.experiment = j.value("experiment", "");
  c.copy = value_from(j.value("copy_gbs", nlohmann::json()), "gbs");
  if (j.contains("copy_gbs_by_precision") && j["copy_gbs_by_precision"].is_object()) {
    c.copy_s = value_from(j["copy_gbs_by_precision"].value("S", nlohmann::json()), "gbs");
    c.copy_d = value_from(j["copy_gbs_by_precision"].value("D", nlohmann::json()), "gbs");
  }
  if (j.contains("gflops") && j["gflops"].is_object()) {
    c.peak_s = value_from(j["gflops"].value("S", nlohmann::json()), "gflops");
    c.peak_d = value_from(j["gflops"].value("D", nlohmann::json()), "gflops");
  }
  if (!c.copy) return warn_once("it has no copy bandwidth");
  c.file = path;
  return c;
}

fs::path save_ceilings(const DeviceInfo& d, Ceilings c) {
  const auto path = ceilings_path(d);
  c.device_id = d.id;
  c.device_name = d.name;
  c.driver = d.driver;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", path.parent_path().string(), ec.message()));
  const auto tmp = path.parent_path() / fmt::format("{}.{}.tmp", path.filename().string(), getpid());
  {
    std::ofstream f(tmp);
    f << to_json(c).dump(2) << "\n";
    f.flush();
    if (!f) throw Error(fmt::format("cannot write '{}'", tmp.string()));
  }
  fs::rename(tmp, path, ec);
  if (ec) throw Error(fmt::format("cannot write '{}': {}", path.string(), ec.message()));
  return path;
}

std::optional<double> roofline_pct(const Ceilings& c, Precision p, double flops, double min_bytes, double seconds) {
  if (!(seconds > 0)) return std::nullopt;
  double floor = 0;
  if (flops > 0) {
    if (auto pk = c.peak_gflops(p)) floor = std::max(floor, flops / (*pk * 1e9));
  }
  if (min_bytes > 0) {
    if (auto bw = c.copy_gbs()) floor = std::max(floor, min_bytes / (*bw * 1e9));
  }
  if (!(floor > 0)) return std::nullopt;
  return 100.0 * floor / seconds;
}

namespace {

// Adds the device's stored ceilings and the point's share of them to every record.
class CeilingObserver final : public PointObserver {
 public:
  // Needs no extra repetition: run_once is left alone.
  void end(Device& dev, const Problem& prob, PointRecord& rec, const std::function<void()>&) override {
    // Read per point (a small file): a `hetbench ceilings` run in between is seen at once.
    auto c = load_ceilings(dev.info());
    if (!c) return;
    auto& o = rec.observed;
    o.ceiling = PointCeiling{c->copy->value, c->peak_gflops(prob.prec), c->file.string()};
    const double seconds = rec.timing ? rec.timing->seconds.median : 0;
    o.pct_ceiling = roofline_pct(*c, prob.prec, prob.flops, prob.min_bytes, seconds);
    if (rec.gbs) o.pct_bw = 100.0 * *rec.gbs / c->copy->value;
  }
};

const bool registered_ceilings = [] {
  register_observer(std::make_shared<CeilingObserver>());
  return true;
}();

}  // namespace
}  // namespace hetbench
