// hetbench ceilings [DEVICE]: measures each device's COPY bandwidth and FMA throughput
// with the ordinary runner (so the points are validated and recorded in an experiment
// folder like any other), then stores the best of each per device for later reports.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "characterize/ceilings.hpp"
#include "engine/record/query.hpp"
#include "engine/record/results.hpp"
#include "engine/runner.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "util/random.hpp"
#include "util/text_table.hpp"

namespace hetbench::cli {

namespace {

namespace fs = std::filesystem;

std::uint64_t pow2_floor(std::uint64_t x) {
  std::uint64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// COPY size: both arrays (in the wider precision) in ~1/8 of device memory, at most
// 2^28 elements on accelerators and 2^26 on CPUs (far beyond their caches either way).
std::uint64_t copy_size(const DeviceInfo& d) {
  const std::uint64_t cap = d.type == "cpu" ? (1ull << 26) : (1ull << 28);
  std::uint64_t n = d.global_mem ? pow2_floor(std::max<std::uint64_t>(1, d.global_mem / 8 / 16)) : cap;
  if (d.max_alloc) n = std::min(n, pow2_floor(std::max<std::uint64_t>(1, d.max_alloc / 8)));
  return std::clamp<std::uint64_t>(n, 1ull << 16, cap);
}

// PEAK size: enough chains for every compute unit to have many work-items (or, on a CPU,
// many blocks per thread) at every EPT, yet each repetition stays short.
std::uint64_t peak_size(const DeviceInfo& d) {
  const std::uint64_t per_cu = d.type == "cpu" ? (1ull << 15) : (1ull << 13);
  return std::clamp<std::uint64_t>(pow2_floor(std::max(1, d.compute_units) * per_cu * 2 - 1), 1ull << 14, 1ull << 24);
}

std::vector<std::shared_ptr<Variant>> of_backend(const std::string& op, BackendKind backend) {
  std::vector<std::shared_ptr<Variant>> out;
  for (const auto& v : variants_for(op))
    if (v->backend == backend) out.push_back(v);
  return out;
}

// Tunables swept for the ceilings, kept where every chosen variant with that parameter
// has the value in its domain; other parameters stay at their defaults.
void sweep_params(RunSpec& r, const std::vector<std::shared_ptr<Variant>>& vs) {
  static const std::map<std::string, std::vector<long long>> wanted{
      {"VW", {1, 2, 4, 8}}, {"WPT", {1, 4, 16}}, {"EPT", {1, 2, 4, 8, 16, 32, 64, 128}}};
  for (const auto& [pname, values] : wanted) {
    std::string list;
    bool any = false;
    for (auto x : values) {
      bool ok = true;
      for (const auto& v : vs)
        if (const ParamDef* d = v->param(pname)) {
          any = true;
          ok &= std::find(d->values.begin(), d->values.end(), x) != d->values.end();
        }
      if (ok) list += fmt::format("{}{}", list.empty() ? "" : ",", x);
    }
    if (any && !list.empty()) r.params[pname] = list;
  }
}

std::vector<std::string> ids(const std::vector<std::shared_ptr<Variant>>& vs) {
  std::vector<std::string> out;
  for (const auto& v : vs) out.push_back(v->id());
  return out;
}

std::optional<CeilingValue> best(const std::vector<nlohmann::json>& recs, const std::string& dev, const std::string& op,
                                 const std::string& prec, const char* metric) {
  query::Selection sel{{{"device", dev}, {"op", op}}};
  if (!prec.empty()) sel.match["precision"] = prec;
  const auto b = query::best_per_group(recs, sel, query::Metric{metric}, query::one_group());
  if (b.groups.empty()) return std::nullopt;
  const auto& r = b.groups[0].record;
  return CeilingValue{b.groups[0].value, r.value("variant_id", ""), r.value("params", nlohmann::json::object()),
                      r.value("sizes", nlohmann::json::object()), r.value("precision", "")};
}

std::string cell(const std::optional<CeilingValue>& v) {
  if (!v) return "-";
  const std::string params = query::params_text(v->params);
  return fmt::format("{:.1f} ({}{}{})", v->value, v->variant_id, params.empty() ? "" : " ", params);
}

struct Opts {
  std::string device = "all";
  std::string size, peak_size;
  std::string out = "hetbench-results";
  int reps = 10, warmup = 2;
  std::uint64_t seed = 0;
  bool quick = false;
};

int run_ceilings(const Opts& o, bool seed_given, const std::string& command_line) {
  auto devices = resolve_devices(o.device);
  Experiment e;
  e.name = "ceilings";
  e.out_root = o.out;
  e.best_only = true;
  e.command_line = command_line;
  e.seed = seed_given ? o.seed : fresh_seed();

  struct Planned {
    std::shared_ptr<Device> dev;
    bool peak = false;
  };
  std::vector<Planned> planned;
  for (const auto& dev : devices) {
    const auto& di = dev->info();
    const auto lang = dev->kernel_language();
    auto copies = of_backend("copy", lang), peaks = of_backend("peak", lang);
    if (copies.empty()) {
      fmt::print(stderr, "hetbench: skipping {}: no copy variant for backend {}\n", di.id, to_string(lang));
      continue;
    }
    std::vector<Precision> precs{Precision::S};
    if (di.fp64) precs.push_back(Precision::D);
    RunSpec copy;
    copy.op = "copy";
    copy.variants = ids(copies);
    copy.devices = di.id;
    copy.precisions = precs;
    copy.sizes = {o.size.empty() ? std::to_string(copy_size(di)) : o.size};
    copy.reps = o.reps;
    copy.warmup = o.warmup;
    if (!o.quick) sweep_params(copy, copies);
    e.runs.push_back(copy);
    Planned p{dev, !peaks.empty()};
    if (p.peak) {
      RunSpec peak = copy;
      peak.op = "peak";
      peak.variants = ids(peaks);
      peak.params.clear();
      peak.sizes = {o.peak_size.empty() ? std::to_string(peak_size(di)) : o.peak_size};
      if (!o.quick) sweep_params(peak, peaks);
      e.runs.push_back(peak);
    } else {
      fmt::print(stderr, "hetbench: {} has no peak variant for backend {}: only its bandwidth is measured\n", di.id,
                 to_string(lang));
    }
    planned.push_back(p);
  }
  if (planned.empty()) throw Error(fmt::format("no device of '{}' can be measured", o.device));
  e.spec = {{"seed", e.seed}, {"purpose", "hetbench ceilings"}};

  fs::path dir;
  const int rc = run_experiment(e, &dir);
  const auto recs = read_results(dir);

  std::vector<std::vector<std::string>> table{{"device", "copy GB/s", "FMA S GFLOP/s", "FMA D GFLOP/s", "file"}};
  int saved = 0;
  for (const auto& p : planned) {
    const auto& di = p.dev->info();
    Ceilings c;
    c.copy_s = best(recs, di.id, "copy", "S", "gbs");
    c.copy_d = best(recs, di.id, "copy", "D", "gbs");
    c.copy = best(recs, di.id, "copy", "", "gbs");
    c.peak_s = best(recs, di.id, "peak", "S", "gflops");
    c.peak_d = best(recs, di.id, "peak", "D", "gflops");
    c.date = now_iso8601();
    c.experiment = fs::absolute(dir).string();
    std::string file = "not saved: no copy point passed";
    if (c.copy) {
      file = save_ceilings(di, c).string();
      ++saved;
    }
    table.push_back({di.id + " (" + di.name + ")", cell(c.copy), cell(c.peak_s), cell(c.peak_d), file});
  }
  fmt::print("\nceilings (copy: bytes read + written; FMA = 2 flops):\n{}", aligned_table(table));
  if (!saved) return rc ? rc : 1;
  return rc;
}

}  // namespace

Command add_ceilings(CLI::App& app, const std::string& command_line) {
  auto* sub = app.add_subcommand(
      "ceilings", "measure each device's copy bandwidth and FMA peak and store them (used for pct_ceiling)");
  auto o = std::make_shared<Opts>();
  sub->add_option("device", o->device, "host, opencl:P:D, cuda:N, a unique name substring, or all")
      ->capture_default_str();
  sub->add_option("--size", o->size,
                  "copy size in elements (default ~1/8 of device memory, at most 2^28 on GPUs and 2^26 on CPUs)");
  sub->add_option("--peak-size", o->peak_size, "peak size in elements (default: enough chains to fill the device)");
  sub->add_option("--reps", o->reps, "timed repetitions per point")->capture_default_str();
  sub->add_option("--warmup", o->warmup, "untimed runs before timing")->capture_default_str();
  sub->add_option("--out", o->out, "results root folder (the ceiling runs are recorded there)")->capture_default_str();
  sub->add_option("--seed", o->seed, "seed of the random inputs (default: a fresh one, recorded)");
  sub->add_flag("--quick", o->quick, "every variant at its default parameters only (no tunable sweep)");
  return {sub, [o, sub, command_line] { return run_ceilings(*o, sub->count("--seed") > 0, command_line); }};
}

}  // namespace hetbench::cli
