#include "compare/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "engine/record/kernel_files.hpp"
#include "engine/plan/plan_params.hpp"
#include "kernel/foreign/foreign.hpp"
#include "engine/plan/worker_planner.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "tuning/db.hpp"
#include "util/sha256.hpp"

namespace hetbench {

namespace {

std::vector<const nlohmann::json*> select_points(const RecordedExperiment& rec, const std::vector<int>& wanted) {
  std::vector<const nlohmann::json*> out;
  if (rec.points.empty()) throw Error(fmt::format("'{}' holds no points to replay", rec.dir.string()));
  if (wanted.empty()) {
    for (const auto& p : rec.points) out.push_back(&p);
    return out;
  }
  for (int n : wanted) {
    auto it = std::find_if(rec.points.begin(), rec.points.end(), [&](const auto& p) { return p["point"] == n; });
    if (it == rec.points.end())
      throw Error(fmt::format("--point {}: '{}' has points {} to {}", n, rec.dir.string(),
                              rec.points.front()["point"].dump(), rec.points.back()["point"].dump()));
    out.push_back(&*it);
  }
  return out;
}

nlohmann::json recorded_device(const nlohmann::json& experiment, const std::string& id) {
  for (const auto& d : experiment.value("devices", nlohmann::json::array()))
    if (d.value("id", "") == id) return d;
  return nullptr;
}

// The device a point ran on, here: the same id with the same name, else the first of the
// same name (another numbering), else none.
std::shared_ptr<Device> device_now(const std::string& id, const std::string& name) {
  const auto all = all_devices();
  for (const auto& d : all)
    if (d->id() == id && d->info().name == name) return d;
  for (const auto& d : all)
    if (d->info().name == name) return d;
  return nullptr;
}

Sizes sizes_of(const nlohmann::json& j) {
  Sizes s;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "input")
      s.input = it.value().get<std::string>();
    else
      s[it.key()] = it.value().get<std::int64_t>();
  }
  return s;
}

// The memory sizes PoCL and the host report follow the free memory, so they change from
// run to run on the same device: not a context difference.
nlohmann::json volatile_keys_erased(nlohmann::json info) {
  info.erase("global_mem_bytes");
  info.erase("max_alloc_bytes");
  // The device report (docs/memory-system.md) holds live readings (clocks, power, free
  // memory) and is not part of what a device is.
  info.erase("report");
  return info;
}

// The median of a point's per-sample SM clock (NVIDIA); 0 where none was read.
double median_clock(const nlohmann::json& r) {
  if (!r.contains("timing") || !r["timing"].contains("sm_clock_mhz")) return 0;
  std::vector<double> mhz;
  for (const auto& x : r["timing"]["sm_clock_mhz"])
    if (x.get<double>() > 0) mhz.push_back(x.get<double>());
  return mhz.empty() ? 0 : median_interval(std::move(mhz)).median;
}

[[noreturn]] void refuse(const nlohmann::json& p, const std::string& why) {
  throw Error(fmt::format("point {} cannot be replayed exactly: {}", p["point"].dump(), why));
}

}  // namespace

RunSpec recorded_measurement(const nlohmann::json& p, const nlohmann::json& experiment) {
  RunSpec r;
  for (const auto& run : experiment.value("runs", nlohmann::json::array()))
    if (run.is_object() && run.value("op", "") == p["op"]) {
      try {
        r = run_spec_from_json(run, "experiment.json runs");
      } catch (const Error&) {
        r = RunSpec{};  // an older or edited run: the defaults, and the point's own timing below
      }
      break;
    }
  if (p.contains("timing")) {
    const auto& t = p["timing"];
    r.warmup = t.value("warmup", r.warmup);
    r.include_transfers = t.value("timed", "kernel") == "kernel+transfers";
    r.cache = t.value("cache", r.cache);
    r.rounds = t.value("rounds", 1);  // a record without rounds was measured in one
    r.executions = t.value("executions", 1);
    if (t.contains("stopping") && t["stopping"].is_object()) {
      const auto& s = t["stopping"];
      if (s.value("rule", "") == "fixed") {
        r.reps = s.value("reps", 1);
      } else {
        r.reps.reset();
        r.max_noise = s.value("max_noise_pct", r.max_noise);
        r.min_samples = s.value("min_samples", r.min_samples);
        r.min_time = s.value("min_time_s", r.min_time);
        r.timeout = s.value("timeout_s", r.timeout);
        r.max_samples = s.value("max_samples", r.max_samples);
      }
    } else if (t.contains("reps")) {
      r.reps = t["reps"].get<int>();  // records from before the adaptive rule: a fixed count
    }
  }
  if (p.contains("energy") && p["energy"].is_object() && p["energy"].value("source", "") == "window") r.energy = true;
  r.op = p["op"];
  r.sizes.clear();
  r.inputs.clear();
  r.params.clear();
  return r;
}

Replay::Replay(const RecordedExperiment& rec, const std::vector<int>& wanted) {
  const auto selected = select_points(rec, wanted);
  const auto seed = (*selected[0]).value("seed", std::uint64_t{0});
  for (const auto* p : selected)
    if (p->value("seed", std::uint64_t{0}) != seed)
      refuse(*p, fmt::format("its seed {} differs from point {}'s {}: replay points of one seed at a time",
                             (*p)["seed"].dump(), (*selected[0])["point"].dump(), seed));
  e_.seed = seed;
  diffs_ = build_differences(rec.experiment);
  // Kernels from outside the build (run --kernel): the experiment's own copies, checked
  // against their SHA-256, become variants again; the replay records them in turn.
  if (const auto entry = recorded_kernel_entry(rec.experiment, rec.dir); !entry.empty()) {
    load_foreign_kernels((*selected[0]).at("op").get<std::string>(), entry);
    e_.spec["gemmbench"] = entry;
  }

  std::map<std::string, std::shared_ptr<Device>> devices;  // recorded id -> here
  std::map<std::string, std::string> hashes_now;           // variant id -> its hash here
  std::set<std::string> files_said;
  std::map<std::string, std::size_t> run_of;  // op, device, precision, sizes, policy -> run
  std::vector<std::vector<std::pair<PlannedPoint, const nlohmann::json*>>> by_run;
  const auto recorded_hashes = rec.experiment.value("variant_hashes", nlohmann::json::object());

  for (const auto* pp : selected) {
    const auto& p = *pp;
    const std::string rid = p["device"], dev_name = p.value("device_name", "");
    if (!devices.count(rid)) {
      auto d = device_now(rid, dev_name);
      if (!d) {
        std::string here;
        for (const auto& x : all_devices())
          here += fmt::format("{}{} ({})", here.empty() ? "" : ", ", x->id(), x->info().name);
        refuse(p,
               fmt::format("it ran on {} ({}), which is not present here; the devices here: {}", rid, dev_name, here));
      }
      const auto info = recorded_device(rec.experiment, rid);
      if (info.is_null())
        diffs_.push_back({"device " + rid, "", d->id() + " " + d->info().name, true});
      else
        json_differences("device " + rid + " ", volatile_keys_erased(info), volatile_keys_erased(to_json(d->info())),
                         diffs_);
      devices[rid] = d;
    }
    const auto& dev = devices[rid];
    const Op& op = find_op(p["op"]);
    const std::string vid = p["variant_id"];
    std::shared_ptr<Variant> v;
    for (const auto& c : variants_for(op.name()))
      if (c->id() == vid) v = c;
    if (!v) refuse(p, fmt::format("variant {} is not in this build (or --kernels does not name its folder)", vid));
    if (!hashes_now.count(vid)) {
      hashes_now[vid] = tuning::variant_hash(*v);
      if (!recorded_hashes.contains(vid))
        diffs_.push_back({"variant " + vid + " code", "", hashes_now[vid], true});
      else if (recorded_hashes[vid] != hashes_now[vid])
        diffs_.push_back({"variant " + vid + " code", recorded_hashes[vid].get<std::string>(), hashes_now[vid]});
    }
    const Precision prec = parse_precision(p["precision"].get<std::string>());
    Sizes s = sizes_of(p["sizes"]);
    if (!op.input_kind().empty()) {
      // The file less a suffix of the op's ("m.mtx@soa" reads m.mtx).
      const std::string file = op.input_source(s.input);
      if (file.rfind("gen:", 0) != 0) {
        if (!std::filesystem::is_regular_file(file))
          refuse(p, fmt::format("its matrix file '{}' is not here (relative paths are read from the current folder)",
                                file));
        const auto now = sha256_file(file);
        const auto& f = p.value("features", nlohmann::json::object());
        if (f.contains("matrix_sha256") && f["matrix_sha256"] != now)
          refuse(p, fmt::format("'{}' changed since it was recorded: SHA-256 {} then, {} now", file,
                                f["matrix_sha256"].get<std::string>(), now));
        if (!f.contains("matrix_sha256") && files_said.insert(file).second)
          diffs_.push_back({"matrix " + file + " content", "", now, true});
      }
      const Sizes parsed = op.parse_input(s.input, seed).at(0);
      if (parsed != s)
        refuse(p, fmt::format("'{}' now gives {}, recorded {}", s.input, format_sizes(parsed), format_sizes(s)));
    }
    ParamValues params;
    for (auto it = p["params"].begin(); it != p["params"].end(); ++it) {
      const auto* def = v->param(it.key());
      if (!def) refuse(p, fmt::format("variant {} has no parameter {} any more", vid, it.key()));
      if (!in_domain(*def, it.value().get<long long>()))
        refuse(p, fmt::format("{}={} is outside the domain of {} now", it.key(), it.value().dump(), vid));
      params[it.key()] = it.value().get<long long>();
    }
    for (const auto& d : v->params)
      if (!params.count(d.name))
        refuse(p, fmt::format("variant {} has a parameter {} the record does not set", vid, d.name));

    RunSpec r = recorded_measurement(p, rec.experiment);
    r.devices = dev->id();
    r.precisions = {prec};
    if (!s.input.empty()) r.inputs = {s.input};
    const std::string key =
        fmt::format("{}|{}|{}|{}|{}", op.name(), dev->id(), name(prec), p["sizes"].dump(), to_json(r).dump());
    auto [it, fresh] = run_of.emplace(key, e_.runs.size());
    if (fresh) {
      r.variants.clear();
      e_.runs.push_back(r);
      RunPlan rp;
      rp.op = &op;
      rp.devices = {dev};
      rp.sizes = {s};
      rp.features = {op.features(s, seed)};
      plan_.runs.push_back(std::move(rp));
      by_run.emplace_back();
    }
    const std::size_t ri = it->second;
    auto& rp = plan_.runs[ri];
    auto& rs = e_.runs[ri];
    if (std::find(rs.variants.begin(), rs.variants.end(), vid) == rs.variants.end()) rs.variants.push_back(vid);
    auto pv =
        std::find_if(rp.variants.begin(), rp.variants.end(), [&](const auto& x) { return x.variant->id() == vid; });
    if (pv == rp.variants.end())
      rp.variants.push_back({v, {params}});
    else
      pv->param_sets.push_back(params);
    for (const auto& [k, x] : params) rp.given[k].push_back(x);
    PlannedPoint point{ri, prec, 0, 0, v.get(), params, {}, nullptr, "", ""};
    for (const auto& [k, x] : params) point.param_source[k] = fmt::format("replay of point {}", p["point"].dump());
    if (auto why = v->unsupported_reason(*dev, prec); !why.empty())
      point.skip = "not supported here: " + why;
    else
      point.skip = v->violated_constraint(*dev, s, prec, params);
    by_run[ri].emplace_back(std::move(point), pp);
  }
  // Points of one run are consecutive, so that they share the problem and its buffers.
  for (std::size_t ri = 0; ri < by_run.size(); ++ri) {
    plan_.runs[ri].spec = &e_.runs[ri];
    for (auto& [point, rec_point] : by_run[ri]) {
      plan_.points.push_back(std::move(point));
      recorded_.push_back(rec_point);
    }
  }
  e_.db = "none";
  e_.name = "replay-" + rec.experiment.value("name", rec.label());
}

namespace {

// A replay's worker (--executions, docs/measurement.md) plans the same points from the
// same records: the parent's plan is not one of its runs.
struct ReplayInWorker {
  RecordedExperiment recorded;
  std::unique_ptr<Replay> replay;
};

const bool registered_replay_planner = register_worker_planner("replay", [](const nlohmann::json& a) {
  auto owned = std::make_shared<ReplayInWorker>();
  owned->recorded = read_experiment(a.at("dir").get<std::string>());
  owned->replay = std::make_unique<Replay>(owned->recorded, a.at("points").get<std::vector<int>>());
  WorkerPlan wp;
  wp.plan = &owned->replay->plan();
  wp.seed = owned->replay->experiment().seed;
  wp.owner = owned;
  return wp;
});

}  // namespace

nlohmann::json Replay::worker_plan(const RecordedExperiment& recorded, const std::vector<int>& points) {
  return {{"planner", "replay"}, {"dir", std::filesystem::absolute(recorded.dir).string()}, {"points", points}};
}

ReplayCheck compare_replay(const RecordedExperiment& recorded, const Replay& replay, const RecordedExperiment& replayed,
                           double threshold, double max_threshold) {
  ReplayCheck out;
  Comparison& c = out.comparison;
  auto& mismatches = out.mismatches;
  c.attr = "experiment";
  c.threshold = threshold;
  c.max_threshold = max_threshold;
  c.labels = {recorded.label(), replayed.label()};
  const auto& recs = replay.recorded();
  const std::size_t n = std::min(recs.size(), replayed.points.size());
  c.unpaired = {recs.size() - n, 0};
  for (std::size_t i = 0; i < n; ++i) {
    const auto& a = *recs[i];
    const auto& b = replayed.points[i];
    for (const char* k : {"op", "variant_id", "precision", "sizes", "params", "device_name"})
      if (a.value(k, nlohmann::json()) != b.value(k, nlohmann::json()))
        mismatches.push_back(fmt::format("point {} (replayed as {}): {} was {}, is {}", a["point"].dump(),
                                         b["point"].dump(), k, a.value(k, nlohmann::json()).dump(),
                                         b.value(k, nlohmann::json()).dump()));
    auto passed = [](const nlohmann::json& r) {
      return r.contains("validation") ? nlohmann::json(r["validation"].value("passed", false))
                                      : nlohmann::json(nullptr);
    };
    if (a["status"] != b["status"] || passed(a) != passed(b))
      mismatches.push_back(fmt::format("point {} (replayed as {}): status {} (validation passed: {}), replayed {} ({})",
                                       a["point"].dump(), b["point"].dump(), a["status"].get<std::string>(),
                                       passed(a).dump(), b["status"].get<std::string>(), passed(b).dump()));
    const double ca = median_clock(a), cb = median_clock(b);
    if (ca > 0 && cb > 0 && std::abs(cb / ca - 1) > 0.01)
      out.clocks.push_back(fmt::format("point {}: median SM clock {:g} MHz recorded, {:g} MHz replayed", a["point"].dump(),
                                       ca, cb));
    c.pairs.push_back({&a, &b, 1, judge_records(a, b, threshold, max_threshold)});
  }
  return out;
}

}  // namespace hetbench
